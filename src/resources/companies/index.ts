import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { resourceRoutes } from '../engine/routes';
import { companiesResource } from './companies.resource';
import { importRoute } from './import';
import { migrateRoute } from './migrate';
import { pmSyncRoute } from './pmsync';

/** `/v2/companies...`: migrate and sync first (so `migrate.json` is not an id), then the generic routes. */
export function companiesRoutes(app: Hono<AppEnv>): void {
  migrateRoute(app);
  pmSyncRoute(app);
  importRoute(app);
  resourceRoutes(app, companiesResource);
}
