import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';

/** `/v2/agentinvites...` */
export function agentInvitesRoutes(app: Hono<AppEnv>): void {
  void app;
}
