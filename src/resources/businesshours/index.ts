import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { resourceRoutes } from '../engine/routes';
import { businessHoursResource } from './businesshours.resource';
import { deleteBusinessHoursRoute } from './delete-business-hours';

/**
 * `/v2/businesshours...`: the generic list, get, create and PATCH/PUT (the spec has no bulk
 * operations for them), and a delete that takes the schedules and holidays along.
 */
export function businessHoursRoutes(app: Hono<AppEnv>): void {
  deleteBusinessHoursRoute(app);
  resourceRoutes(app, businessHoursResource);
}
