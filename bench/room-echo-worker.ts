// The room benchmark's baseline (bench/room.ts): a bare echo room. One Durable Object takes every
// WebSocket of `GET /rooms/{name}` with the Hibernation API and sends each text frame it gets, as
// it is, to every socket of the room, its sender included (as the conversation room does). No
// parsing, no checks, no storage: what a room costs in workerd before it does any work of its own.
import { DurableObject } from 'cloudflare:workers';

interface EchoEnv {
  ECHO_ROOMS: DurableObjectNamespace<EchoRoom>;
}

export class EchoRoom extends DurableObject<EchoEnv> {
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket')
      return new Response('expected a WebSocket upgrade', { status: 426 });
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketMessage(_ws: WebSocket, data: string | ArrayBuffer): Promise<void> {
    for (const socket of this.ctx.getWebSockets()) {
      try {
        socket.send(data);
      } catch {
        // closing under us
      }
    }
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, 'bye');
    } catch {
      // already closed
    }
  }
}

export default {
  async fetch(request: Request, env: EchoEnv): Promise<Response> {
    const name = /^\/rooms\/([\w-]{1,64})$/.exec(new URL(request.url).pathname)?.[1];
    if (!name) return new Response('not found', { status: 404 });
    return env.ECHO_ROOMS.get(env.ECHO_ROOMS.idFromName(name)).fetch(request);
  },
} satisfies ExportedHandler<EchoEnv>;
