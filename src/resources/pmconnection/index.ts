import { defineModule } from '../../modules/module';
import { getPmConnectionRoute } from './get-pm-connection.route';
import { setPmConnectionRoute } from './set-pm-connection.route';

/**
 * `/v2/pmconnection.json`: the installation's link to the project-management product that
 * company sync uses (docs/resources/pmsync.md). The token goes in, never out.
 */
export const pmConnectionModule = defineModule({
  name: 'pmconnection',
  routes: [getPmConnectionRoute, setPmConnectionRoute],
});
