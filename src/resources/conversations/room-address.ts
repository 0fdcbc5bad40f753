import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';

/** Where a conversation's room is joined: the WebSocket address on this host, and the room's id. */
export function roomAddress(c: Context<AppEnv>, token: string): { socketUrl: string; socketId: string } {
  const url = new URL(c.req.url);
  const scheme = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return {
    socketUrl: `${scheme}//${url.host}/v2/rooms/${token}/socket`,
    socketId: c.env.CONVERSATION_ROOMS.idFromName(token).toString(),
  };
}
