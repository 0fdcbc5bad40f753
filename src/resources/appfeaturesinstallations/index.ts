import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';

/** `/v2/appfeaturesinstallations...` */
export function appFeaturesInstallationsRoutes(app: Hono<AppEnv>): void {
  void app;
}
