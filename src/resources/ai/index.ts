import { defineModule } from '../../modules/module';
import { meterAiUsage } from './metering';
import { getAiStatsRoute } from './get-ai-stats.route';
import { getAiUsageRoute } from './get-ai-usage.route';

/** `GET /v2/ai/usage.json` and `GET /v2/ai/stats.json`, and the cron's metering of each billing period (docs/ai.md). */
export const aiModule = defineModule({
  name: 'ai',
  routes: [getAiUsageRoute, getAiStatsRoute],
  cron: { metering: meterAiUsage },
});
