import { defineModule } from '../../modules/module';
import { acceptRoute } from './accept';
import { agentInvitesResource } from './agentinvites.resource';
import { declineRoute } from './decline';

/** `/v2/agentinvites...`: list, get and create, and the owner's accept and decline. */
export const agentInvitesModule = defineModule({
  name: 'agentinvites',
  resources: [agentInvitesResource],
  routes: [acceptRoute, declineRoute],
});
