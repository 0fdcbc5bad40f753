import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Miniflare } from 'miniflare';

/**
 * Lets test files (in other processes than Miniflare) put a message on the Worker's real queue,
 * as the queue itself would redeliver it: POST a JSON body to the returned address.
 */
export async function startQueueSender(miniflare: Miniflare, binding: string): Promise<{ url: string; stop(): Promise<void> }> {
  const queue = await miniflare.getQueueProducer(binding);
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      queue
        .send(JSON.parse(body))
        .then(() => response.writeHead(204).end())
        .catch((error: unknown) => response.writeHead(500).end(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}
