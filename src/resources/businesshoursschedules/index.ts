import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';

/** `/v2/businesshoursschedules...` */
export function businessHoursSchedulesRoutes(app: Hono<AppEnv>): void {
  void app;
}
