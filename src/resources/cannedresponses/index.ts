import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { resourceRoutes } from '../engine/routes';
import { cannedResponsesResource } from './cannedresponses.resource';

/** `/v2/cannedresponses...`: the generic CRUD routes (the spec has no bulk operations for them). */
export function cannedResponsesRoutes(app: Hono<AppEnv>): void {
  resourceRoutes(app, cannedResponsesResource);
}
