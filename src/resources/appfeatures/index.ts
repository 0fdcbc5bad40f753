import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';

/** `/v2/appfeatures...` */
export function appFeaturesRoutes(app: Hono<AppEnv>): void {
  void app;
}
