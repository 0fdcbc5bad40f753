import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { resourceRoutes } from '../engine/routes';
import { appsResource } from './apps.resource';
import { installRoutes } from './install';
import { updateSettingRoute } from './update-setting';

/** `/v2/apps...`: the catalogue (list, get), install and uninstall, and an installed app's settings. */
export function appsRoutes(app: Hono<AppEnv>): void {
  installRoutes(app);
  updateSettingRoute(app);
  resourceRoutes(app, appsResource);
}
