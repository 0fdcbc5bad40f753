import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';

/** `/v2/apps...` */
export function appsRoutes(app: Hono<AppEnv>): void {
  void app;
}
