import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { aiStatsRoute } from './stats';
import { aiUsageRoute } from './usage';

/** `GET /v2/ai/usage.json` and `GET /v2/ai/stats.json` (docs/ai.md). */
export function aiRoutes(app: Hono<AppEnv>): void {
  aiUsageRoute(app);
  aiStatsRoute(app);
}
