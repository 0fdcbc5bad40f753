import { defineModule } from '../../modules/module';
import { mailDomainsResource } from './maildomains.resource';
import { verifyMailDomainRoute } from './verify-mail-domain.route';

/**
 * `/v2/maildomains...`: the domains an installation claims for its inboxes' own addresses (list,
 * get, create, delete) and their verification by a DNS TXT record.
 */
export const mailDomainsModule = defineModule({
  name: 'maildomains',
  resources: [mailDomainsResource],
  routes: [verifyMailDomainRoute],
});
