// WebSocket-to-TCP proxy for the Neon driver's Pool/Client, local stack only.
// The driver opens `ws://<wsProxy(host, port)>`, i.e. with the setting we use
// `ws://127.0.0.1:<proxy>/v2?address=<host>:<port>`, then sends and expects the raw Postgres
// wire protocol as binary frames (binaryType 'arraybuffer'), one TCP stream per WebSocket.
import http from 'node:http';
import net from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface RunningWsProxy {
  port: number;
  /** Counts since start, for benchmarks: WebSocket connections bridged to Postgres. */
  stats(): WsProxyStats;
  stop(): Promise<void>;
}
export interface WsProxyStats {
  connections: number;
}

export async function startWsProxy(opts: { port?: number } = {}): Promise<RunningWsProxy> {
  const counts: WsProxyStats = { connections: 0 };
  const server = http.createServer((_req, res) => res.writeHead(426).end('WebSocket only\n'));
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });

  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    const target = loopbackTarget(req.url ?? '');
    if (!target) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      counts.connections++;
      bridge(ws, target);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= new Promise<void>((resolve) => {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      server.close(() => resolve());
      server.closeAllConnections();
    }));
  return { port, stats: () => ({ ...counts }), stop };
}

function bridge(ws: WebSocket, target: { host: string; port: number }) {
  // net.Socket queues writes made while it is still connecting, so the client's startup
  // message may arrive before the TCP connection is up: no buffering needed here.
  const tcp = net.connect(target.port, target.host);
  tcp.setNoDelay(true);
  tcp.on('data', (chunk) => ws.send(chunk)); // a Buffer goes out as a binary frame
  tcp.on('error', () => {}); // followed by 'close', handled below
  tcp.on('close', (hadError) => ws.close(hadError ? 1011 : 1000));
  ws.on('message', (data: Buffer) => tcp.write(data));
  ws.on('close', () => tcp.end()); // flushes what the client sent last (its Terminate message)
  ws.on('error', () => tcp.destroy());
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
