import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';

/** `/v2/anomalies...` */
export function anomaliesRoutes(app: Hono<AppEnv>): void {
  void app;
}
