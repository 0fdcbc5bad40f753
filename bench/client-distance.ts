// A client far from the Worker, for bench:far's "placed" mode: a TCP proxy on 127.0.0.1 in front
// of the Worker that makes the link `rttMs` long. A new client connection reaches the Worker one
// round trip late (standing for its TCP handshake); then every chunk of bytes waits half the round
// trip on its way, in its order, in each direction: an HTTP request reaches the Worker RTT/2 after
// it was sent and its answer the client RTT/2 after the Worker wrote it. Connections stay open
// as long as the client keeps them (Node's fetch keeps them alive), so a client pays the set-up
// once per connection and each request after it one round trip.
import net from 'node:net';
import { delayedLane } from '../scripts/stack/distance';

export interface ClientDistance {
  /** the Worker's address as the far client sees it */
  url: string;
  /** client connections opened through it since it started (each paid one round trip of set-up) */
  connections(): number;
  stop(): Promise<void>;
}

export async function startClientDistance(opts: { workerUrl: string; rttMs: number }): Promise<ClientDistance> {
  const target = new URL(opts.workerUrl);
  const oneWay = opts.rttMs / 2;
  const open = new Set<net.Socket>();
  let connections = 0;
  // half-open allowed both ways: an end is passed on in its lane, after the bytes before it
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    connections++;
    client.setNoDelay(true);
    client.pause(); // what it sends during the set-up waits in the socket
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    const handshake = setTimeout(() => {
      if (client.destroyed) return;
      const worker = net.connect({ port: Number(target.port), host: target.hostname, allowHalfOpen: true });
      worker.setNoDelay(true);
      open.add(worker);
      worker.on('close', () => open.delete(worker));
      const toWorker = delayedLane(oneWay);
      const toClient = delayedLane(oneWay);
      // net.Socket queues writes made while it is still connecting
      client.on('data', (chunk) => toWorker(() => worker.write(chunk)));
      client.on('end', () => toWorker(() => worker.end()));
      client.on('close', (hadError) => hadError && worker.destroy());
      worker.on('data', (chunk) => toClient(() => client.write(chunk)));
      worker.on('end', () => toClient(() => client.end()));
      worker.on('error', () => toClient(() => client.destroy()));
      client.resume();
    }, Math.ceil(opts.rttMs));
    client.on('close', () => clearTimeout(handshake));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    stop: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
