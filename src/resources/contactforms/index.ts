import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { resourceRoutes } from '../engine/routes';
import { contactFormsResource } from './contactforms.resource';

/** `/v2/contactforms...`: the generic routes, bulk update and bulk delete included. */
export function contactFormsRoutes(app: Hono<AppEnv>): void {
  resourceRoutes(app, contactFormsResource);
}
