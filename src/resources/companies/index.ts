import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { resourceRoutes } from '../engine/routes';
import { companiesResource } from './companies.resource';

/** `/v2/companies...`: the generic routes. Import, sync and migrate arrive with the background work. */
export function companiesRoutes(app: Hono<AppEnv>): void {
  resourceRoutes(app, companiesResource);
}
