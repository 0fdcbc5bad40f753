import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { joinRoomRoute } from './join';

/** `/v2/rooms/{token}/socket`: public, the token is the credential. */
export function roomsRoutes(app: Hono<AppEnv>): void {
  joinRoomRoute(app);
}
