// One Workers Analytics Engine data point per request, written where the request's log line is:
// the route pattern (never the path), method, status class and code, installation; duration and
// database round trips; the installation as the index. Miniflare's own simulation of the binding
// drops the points (the shared Worker runs with it, so every other test runs with the binding
// present); this file serves the service's bundle twice more: with a stand-in that prints each
// point as a log line (scripts/stack/metrics-stand-in.js), and with no binding at all.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { serveWorker, type WorkerUnderTest } from '../../scripts/worker-under-test';
import { workerLogs } from '../setup/worker-logs';
import { checkAnswer, type ApiResponse } from '../support/contract';
import { newInstallation } from '../support/db';
import { eventually } from '../support/room';

let logged: WorkerUnderTest;
let absent: WorkerUnderTest;
let site: SeededInstallation;
const loggedLines = workerLogs();
const absentLines = workerLogs();

beforeAll(async () => {
  site = await newInstallation('request-metrics');
  logged = await serveWorker(inject('stackParts'), inject('workerScript'), {
    requestMetrics: 'logged',
    onLogLine: loggedLines.handle,
  });
  absent = await serveWorker(inject('stackParts'), inject('workerScript'), {
    requestMetrics: 'absent',
    onLogLine: absentLines.handle,
  });
}, 120_000);

afterAll(async () => {
  await logged?.stop();
  await absent?.stop();
});

async function call(
  worker: WorkerUnderTest,
  pathname: string,
  init: { method?: string; key?: string; body?: unknown; requestId?: string } = {},
): Promise<ApiResponse> {
  const url = `${worker.url}${pathname}`;
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = {};
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.requestId) headers['x-request-id'] = init.requestId;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return checkAnswer(
    method,
    url,
    await fetch(url, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) }),
  );
}

interface DataPoint {
  dataset: string;
  indexes: string[];
  blobs: string[];
  doubles: number[];
}

/** The data points printed so far whose blobs begin with `blobs`. */
const pointsLike = (blobs: string[]) =>
  loggedLines
    .matching({ message: 'analytics data point' })
    .map((line) => line as unknown as DataPoint)
    .filter((point) => blobs.every((blob, i) => point.blobs[i] === blob));

const awaitPoint = (blobs: string[]) => eventually(async () => pointsLike(blobs)[0], 5_000);

describe('the data point of a request', () => {
  it('names the route pattern, the method, the status class and code and the installation; counts duration and round trips', async () => {
    const installation = String(site.id);
    const created = await call(logged, '/v2/companies.json', {
      method: 'POST',
      key: site.users.agent.apiKey,
      body: { company: { name: 'Measured Co' } },
    });
    expect(created.status, created.text).toBe(201);
    const point = await awaitPoint(['/v2/companies.json', 'POST', '2xx', '201', installation]);
    expect(point).toEqual({
      message: 'analytics data point',
      level: 'info',
      dataset: 'helpdesk_requests',
      indexes: [installation],
      blobs: ['/v2/companies.json', 'POST', '2xx', '201', installation],
      doubles: [expect.any(Number), expect.any(Number)],
    });
    const [durationMs, dbRoundTrips] = point.doubles;
    expect(durationMs).toBeGreaterThanOrEqual(0);
    expect(dbRoundTrips).toBeGreaterThanOrEqual(1);

    // the log line of the same request says the same
    const requestId = `metrics-${Math.random().toString(36).slice(2)}`;
    const missing = await call(logged, `/v2/companies/${2_000_000_000 + (site.id % 1000)}.json`, {
      key: site.users.agent.apiKey,
      requestId,
    });
    expect(missing.status).toBe(404);
    const notFound = await awaitPoint(['/v2/companies/{id}.json', 'GET', '4xx', '404', installation]);
    const [line] = loggedLines.matching({ message: 'request', requestId });
    expect(line).toMatchObject({ route: '/v2/companies/{id}.json', status: 404, installationId: site.id });
    expect(JSON.stringify(notFound)).not.toContain(String(2_000_000_000 + (site.id % 1000)));
  });

  it('never holds the path: a path no route serves is "(none)", a refusal before authentication names no installation', async () => {
    const unknown = await call(logged, '/v2/nothing-here/8675309.json', { key: site.users.agent.apiKey });
    expect(unknown.status).toBe(404);
    const point = await awaitPoint(['(none)', 'GET', '4xx', '404']);
    expect(JSON.stringify(point)).not.toContain('8675309');
    expect(JSON.stringify(point)).not.toContain('nothing-here');

    const refused = await call(logged, '/v2/tickets.json', { key: 'hd_not_a_key_at_all' });
    expect(refused.status).toBe(401);
    const anonymous = await awaitPoint(['/v2/tickets.json', 'GET', '4xx', '401']);
    expect(anonymous.blobs[4]).toBe('');
    expect(anonymous.indexes).toEqual(['']);
    expect(JSON.stringify(anonymous)).not.toContain('hd_not_a_key_at_all');
  });
});

describe('without the binding', () => {
  it('serves requests as ever, each with its log line', async () => {
    const requestId = `no-metrics-${Math.random().toString(36).slice(2)}`;
    const listed = await call(absent, '/v2/companies.json', { key: site.users.agent.apiKey, requestId });
    expect(listed.status, listed.text).toBe(200);
    expect((await call(absent, '/health')).status).toBe(200);
    const [line] = await eventually(async () => {
      const lines = absentLines.matching({ message: 'request', requestId });
      return lines.length ? lines : undefined;
    }, 5_000);
    expect(line).toMatchObject({ route: '/v2/companies.json', status: 200, installationId: site.id });
    expect(absentLines.matching({ message: 'metrics: the request data point was not written' })).toEqual([]);
  });
});
