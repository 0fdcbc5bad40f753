import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { resourceRoutes } from '../engine/routes';
import { appFeaturesInstallationsResource } from './appfeaturesinstallations.resource';

/** `/v2/appfeaturesinstallations...`: the caller's installation's app features, list and get. */
export function appFeaturesInstallationsRoutes(app: Hono<AppEnv>): void {
  resourceRoutes(app, appFeaturesInstallationsResource);
}
