import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';

/** `/v2/contactforms...` */
export function contactFormsRoutes(app: Hono<AppEnv>): void {
  void app;
}
