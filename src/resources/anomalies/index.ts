import { defineModule } from '../../modules/module';
import { anomaliesResource } from './anomalies.resource';
import { clearAnomaliesRoute } from './clear-anomalies.route';
import { clearAnomalyRoute } from './clear-anomaly.route';
import { scanForAnomalies } from './scan';

/** `/v2/anomalies...`: list and get, clear one and clear by filter; the cron's scan records new ones. */
export const anomaliesModule = defineModule({
  name: 'anomalies',
  resources: [anomaliesResource],
  routes: [clearAnomalyRoute, clearAnomaliesRoute],
  cron: { scan: scanForAnomalies },
});
