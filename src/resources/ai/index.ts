import { defineModule } from '../../modules/module';
import { meterAiUsage } from './metering';
import { aiStatsRoute } from './stats';
import { aiUsageRoute } from './usage';

/** `GET /v2/ai/usage.json` and `GET /v2/ai/stats.json`, and the cron's metering of each billing period (docs/ai.md). */
export const aiModule = defineModule({
  name: 'ai',
  routes: [aiUsageRoute, aiStatsRoute],
  cron: { metering: meterAiUsage },
});
