import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { resourceRoutes } from '../engine/routes';
import { anomaliesResource } from './anomalies.resource';
import { bulkClearRoute } from './bulk-clear';
import { clearRoute } from './clear';

/** `/v2/anomalies...`: list and get, and the clears (before `{id}.json`, so `clear.json` is not an id). */
export function anomaliesRoutes(app: Hono<AppEnv>): void {
  bulkClearRoute(app);
  clearRoute(app);
  resourceRoutes(app, anomaliesResource);
}
