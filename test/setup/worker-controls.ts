import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Miniflare } from 'miniflare';
import type { WorkerLogs } from './worker-logs';
import { readBody } from '../../scripts/stack/read-body';

export const CRON = '*/5 * * * *';

/**
 * Lets test files (in other processes than Miniflare) reach the Worker's other entry points the
 * way the platform does:
 * - `POST /queue` with a JSON body puts it on the real JOBS queue, as a redelivery would;
 * - `POST /scheduled?time=ISO` fires the cron trigger as if at that time, and answers 204 once
 *   the scheduled handler finished, 500 with its outcome when it threw;
 * - `GET /logs?name=value&...` answers the Worker's JSON log lines with those fields, as a JSON array.
 */
export async function startWorkerControls(
  miniflare: Miniflare,
  queueBinding: string,
  logs: WorkerLogs,
): Promise<{ url: string; stop(): Promise<void> }> {
  const queue = await miniflare.getQueueProducer(queueBinding);
  const worker = await miniflare.getWorker();
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const done = (status: number, text = '') => response.writeHead(status).end(text);
    (async () => {
      const body = await readBody(request);
      if (url.pathname === '/queue') {
        await queue.send(JSON.parse(body));
        return done(204);
      }
      if (url.pathname === '/logs') {
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(logs.matching(Object.fromEntries(url.searchParams))));
        return;
      }
      if (url.pathname === '/scheduled') {
        const time = url.searchParams.get('time');
        const result = await worker.scheduled({ scheduledTime: time ? new Date(time) : new Date(), cron: CRON });
        return result.outcome === 'ok' ? done(204) : done(500, result.outcome);
      }
      done(404);
    })().catch((error: unknown) => done(500, String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}
