import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { resourceRoutes } from '../engine/routes';
import { businessHoursHolidaysResource } from './businesshoursholidays.resource';

/** `/v2/businesshoursholidays...`: the generic CRUD routes (the spec has no bulk operations for them). */
export function businessHoursHolidaysRoutes(app: Hono<AppEnv>): void {
  resourceRoutes(app, businessHoursHolidaysResource);
}
