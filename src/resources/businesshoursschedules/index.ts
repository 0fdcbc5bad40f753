import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { resourceRoutes } from '../engine/routes';
import { businessHoursSchedulesResource } from './businesshoursschedules.resource';

/** `/v2/businesshoursschedules...`: the generic CRUD routes (the spec has no bulk operations for them). */
export function businessHoursSchedulesRoutes(app: Hono<AppEnv>): void {
  resourceRoutes(app, businessHoursSchedulesResource);
}
