import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { resourceRoutes } from '../engine/routes';
import { appFeaturesResource } from './appfeatures.resource';

/** `/v2/appfeatures...`: the catalogue's features, list and get. */
export function appFeaturesRoutes(app: Hono<AppEnv>): void {
  resourceRoutes(app, appFeaturesResource);
}
