import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';

/** `/v2/codetemplates...` */
export function codeTemplatesRoutes(app: Hono<AppEnv>): void {
  void app;
}
