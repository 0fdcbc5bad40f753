import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';

/** `/v2/announcement...` */
export function announcementRoutes(app: Hono<AppEnv>): void {
  void app;
}
