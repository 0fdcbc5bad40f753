// The webhook benchmark's receivers, in a process of their own so that a receipt's time is never
// held up by the local stack's stand-ins (the SQL-over-HTTP and WebSocket proxies), which run in
// the benchmark's process and are busy only while the service runs: as a receiver out on the
// network never waits for our database's proxy. Driven by bench/webhooks.ts over IPC: told how
// many receivers to start for each variant, it answers their addresses, then sends the receipts
// (a few times a second, in batches) and the first body it received.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceiversRequest {
  variants: string[];
  each: number;
}

export interface Receipt {
  deliveryId: string;
  /** ms from the event's commit (its `occurredAt`, until restamped) to its arrival */
  latency: number;
  occurredAt: number;
  receivedAt: number;
}

export type ReceiversMessage =
  { urls: Record<string, string[]> } | { receipts: Array<[string, Receipt]> } | { body: string };

const send = (message: ReceiversMessage) => process.send!(message);

let pending: Array<[string, Receipt]> = [];
let bodySent = false;

/** A receiver: answers every POST 200 at once and notes it. */
async function startReceiver(variant: string): Promise<string> {
  const server = http.createServer((request, response) => {
    const receivedAt = Date.now();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const occurredAt = Date.parse((JSON.parse(text) as { occurredAt: string }).occurredAt);
      if (!bodySent) {
        bodySent = true;
        send({ body: text });
      }
      pending.push([
        variant,
        {
          deliveryId: String(request.headers['x-desk-delivery']),
          latency: receivedAt - occurredAt,
          occurredAt,
          receivedAt,
        },
      ]);
      response.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

process.once('message', async (job: ReceiversRequest) => {
  const urls: Record<string, string[]> = {};
  for (const variant of job.variants) {
    urls[variant] = [];
    for (let i = 0; i < job.each; i++) urls[variant].push(await startReceiver(variant));
  }
  send({ urls });
  setInterval(() => {
    if (pending.length === 0) return;
    send({ receipts: pending });
    pending = [];
  }, 100);
});
// the benchmark ends this process when it is done
process.on('disconnect', () => process.exit(0));
