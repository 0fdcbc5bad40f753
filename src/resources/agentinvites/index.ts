import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { resourceRoutes } from '../engine/routes';
import { acceptRoute } from './accept';
import { agentInvitesResource } from './agentinvites.resource';
import { declineRoute } from './decline';

/** `/v2/agentinvites...`: list, get and create, and the owner's accept and decline. */
export function agentInvitesRoutes(app: Hono<AppEnv>): void {
  acceptRoute(app);
  declineRoute(app);
  resourceRoutes(app, agentInvitesResource);
}
