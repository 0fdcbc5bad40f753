import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { updateSentimentRoutes } from './update-sentiment';

/** `/v2/codetemplates...`: only the sentiment settings of a template (docs/resources/codetemplates.md). */
export function codeTemplatesRoutes(app: Hono<AppEnv>): void {
  updateSentimentRoutes(app);
}
