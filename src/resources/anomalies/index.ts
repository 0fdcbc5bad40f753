import { defineModule } from '../../modules/module';
import { anomaliesResource } from './anomalies.resource';
import { bulkClearRoute } from './bulk-clear';
import { clearRoute } from './clear';
import { scanForAnomalies } from './scan';

/** `/v2/anomalies...`: list and get, clear one and clear by filter; the cron's scan records new ones. */
export const anomaliesModule = defineModule({
  name: 'anomalies',
  resources: [anomaliesResource],
  routes: [clearRoute, bulkClearRoute],
  cron: { scan: scanForAnomalies },
});
