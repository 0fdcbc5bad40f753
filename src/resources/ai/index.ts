import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';

/** `GET /v2/ai/usage.json` and `GET /v2/ai/stats.json`. */
export function aiRoutes(_app: Hono<AppEnv>): void {}
