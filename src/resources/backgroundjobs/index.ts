import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';

/** `/v2/backgroundjobs...` */
export function backgroundJobsRoutes(app: Hono<AppEnv>): void {
  void app;
}
