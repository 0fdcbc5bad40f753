import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';

/** `/v2/businesshoursholidays...` */
export function businessHoursHolidaysRoutes(app: Hono<AppEnv>): void {
  void app;
}
