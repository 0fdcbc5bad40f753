import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';

/** `/v2/businesshours...` */
export function businessHoursRoutes(app: Hono<AppEnv>): void {
  void app;
}
