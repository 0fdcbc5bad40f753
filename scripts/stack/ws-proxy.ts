// WebSocket-to-TCP proxy for the Neon driver's Pool/Client, local stack only.
// The driver opens `ws://<wsProxy(host, port)>`, i.e. with the setting we use
// `ws://127.0.0.1:<proxy>/v2?address=<host>:<port>`, then sends and expects the raw Postgres
// wire protocol as binary frames (binaryType 'arraybuffer'), one TCP stream per WebSocket.
// With a round trip `rttMs` (HELPDESK_DB_RTT_MS), the upgrade is answered one round trip late (the
// TCP, TLS and WebSocket handshakes of a far connection) and every message waits half of it on its
// way, in its order: so each Postgres exchange, startup and authentication included, costs one.
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { delayedLane } from './distance.js';

export interface RunningWsProxy {
  port: number;
  /** Counts since start, for benchmarks: WebSocket connections bridged to Postgres. */
  stats(): WsProxyStats;
  stop(): Promise<void>;
}
export interface WsProxyStats {
  connections: number;
}

export async function startWsProxy(opts: { port?: number; rttMs?: number } = {}): Promise<RunningWsProxy> {
  const rttMs = opts.rttMs ?? 0;
  const counts: WsProxyStats = { connections: 0 };
  const upstreams = new Set<net.Socket>();
  const handshaking = new Map<Duplex, NodeJS.Timeout>();
  const server = http.createServer((_req, res) => res.writeHead(426).end('WebSocket only\n'));
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });

  const answerUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const target = loopbackTarget(req.url ?? '');
    if (!target) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      counts.connections++;
      const tcp = bridge(ws, target, rttMs / 2);
      upstreams.add(tcp);
      tcp.on('close', () => upstreams.delete(tcp));
    });
  };
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    if (rttMs <= 0) return answerUpgrade(req, socket, head);
    const timer = setTimeout(() => {
      handshaking.delete(socket);
      if (!socket.destroyed) answerUpgrade(req, socket, head);
    }, Math.ceil(rttMs));
    handshaking.set(socket, timer);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= new Promise<void>((resolve) => {
      for (const [socket, timer] of handshaking) (clearTimeout(timer), socket.destroy());
      for (const ws of wss.clients) ws.terminate();
      for (const tcp of upstreams) tcp.destroy(); // not left to a delayed end
      wss.close();
      server.close(() => resolve());
      server.closeAllConnections();
    }));
  return { port, stats: () => ({ ...counts }), stop };
}

/** Joins the WebSocket to a new TCP connection to Postgres, each way `oneWayMs` long. */
function bridge(ws: WebSocket, target: { host: string; port: number }, oneWayMs: number): net.Socket {
  // net.Socket queues writes made while it is still connecting, so the client's startup
  // message may arrive before the TCP connection is up: no buffering needed here.
  const tcp = net.connect(target.port, target.host);
  tcp.setNoDelay(true);
  const toClient = delayedLane(oneWayMs);
  const toPostgres = delayedLane(oneWayMs);
  tcp.on('data', (chunk) => toClient(() => ws.send(chunk))); // a Buffer goes out as a binary frame
  tcp.on('error', () => {}); // followed by 'close', handled below
  tcp.on('close', (hadError) => toClient(() => ws.close(hadError ? 1011 : 1000)));
  ws.on('message', (data: Buffer) => toPostgres(() => tcp.write(data)));
  ws.on('close', () => toPostgres(() => tcp.end())); // flushes what the client sent last (its Terminate message)
  ws.on('error', () => tcp.destroy());
  return tcp;
}

/** `?address=host:port` if host is a loopback address, else null: never an open relay. */
function loopbackTarget(url: string): { host: string; port: number } | null {
  const address = new URL(url, 'http://proxy').searchParams.get('address') ?? '';
  const sep = address.lastIndexOf(':');
  const host = address.slice(0, sep).replace(/^\[(.*)\]$/, '$1');
  const port = Number(address.slice(sep + 1));
  const loopback = host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  return sep > 0 && loopback && Number.isInteger(port) && port > 0 && port < 65536 ? { host, port } : null;
}
