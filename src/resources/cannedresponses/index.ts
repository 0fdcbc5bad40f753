import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';

/** `/v2/cannedresponses...` */
export function cannedResponsesRoutes(app: Hono<AppEnv>): void {
  void app;
}
