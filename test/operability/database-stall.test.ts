// A database that stops answering mid-write (it accepts, then never replies): a write sent as one
// batch answers 503 once the HTTP exchange's deadline passes (10 s), an interactive one once its
// transaction's deadline passes (20 s); nothing is half-written, and once the database answers
// again the next request works (docs/connection-strategy.md, "A database that does not answer").
// This file serves a Worker of its own whose way to the database goes through a switch it holds.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { serveWorker, type WorkerUnderTest } from '../../scripts/worker-under-test';
import { checkAnswer } from '../support/contract';
import { newInstallation, rows } from '../support/db';

/** A TCP relay to `upstream` that can stall: then it takes what it is sent and answers nothing, on new and open connections alike. */
async function stallingRelay(upstream: { host: string; port: number }) {
  let stalled = false;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    open.add(client);
    const far = net.connect(upstream);
    client.on('data', (chunk) => void (stalled ? undefined : far.write(chunk)));
    far.on('data', (chunk) => void (stalled ? undefined : client.write(chunk)));
    const end = () => {
      open.delete(client);
      client.destroy();
      far.destroy();
    };
    client.on('close', end).on('error', end);
    far.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    stall: () => void (stalled = true),
    /** Answers again: what was caught in the stall is cut (its clients open new connections). */
    resume: () => {
      stalled = false;
      for (const socket of open) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let worker: WorkerUnderTest;
let site: SeededInstallation;
let relays: Array<Awaited<ReturnType<typeof stallingRelay>>>;

beforeAll(async () => {
  const parts = inject('stackParts');
  const http = new URL(parts.sqlHttpUrl);
  relays = [
    await stallingRelay({ host: '127.0.0.1', port: parts.wsProxyPort }),
    await stallingRelay({ host: http.hostname, port: Number(http.port) }),
  ];
  const [ws, sql] = relays;
  worker = await serveWorker(
    {
      databaseUrl: parts.databaseUrl,
      wsProxyPort: ws!.port,
      sqlHttpUrl: `${http.protocol}//127.0.0.1:${sql!.port}${http.pathname}`,
    },
    inject('workerScript'),
  );
  site = await newInstallation('stall');
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  for (const relay of relays ?? []) await relay.close();
});

const stall = () => relays.forEach((relay) => relay.stall());
const resume = () => relays.forEach((relay) => relay.resume());

const post = (path: string, body: unknown) => send('POST', path, body);

async function send(method: 'POST', path: string, body: unknown) {
  const url = `${worker.url}${path}`;
  const started = performance.now();
  const answer = await checkAnswer<{ errors?: Array<{ code: string }> } & Record<string, { id: number }>>(
    method,
    url,
    await fetch(url, {
      method,
      headers: { authorization: `Bearer ${site.users.owner.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
  return { ...answer, ms: performance.now() - started };
}

async function sendCsv(csv: string) {
  const url = `${worker.url}/v2/companies/import.csv`;
  const started = performance.now();
  const answer = await checkAnswer<{ errors?: Array<{ code: string }> }>(
    'POST',
    url,
    await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${site.users.owner.apiKey}`, 'content-type': 'text/csv' },
      body: csv,
    }),
  );
  return { ...answer, ms: performance.now() - started };
}

describe('a database that stops answering', () => {
  it('a write sent as one batch: 503 with Retry-After past the exchange deadline, nothing written; then the next works', async () => {
    // the credential looked up and remembered while the database answers
    expect((await post('/v2/companies.json', { company: { name: `Before ${Date.now()}` } })).status).toBe(201);
    const name = `Stalled ${Date.now()}`;
    stall();
    let refused;
    try {
      refused = await post('/v2/companies.json', {
        company: { name, domains: [{ name: `stall-${Date.now()}.example.com` }] },
      });
    } finally {
      resume();
    }
    expect(refused.status, refused.text).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.body.errors![0]!.code).toBe('unavailable');
    expect(refused.ms).toBeGreaterThan(9_000);
    expect(refused.ms).toBeLessThan(15_000);
    expect(await rows(`SELECT id FROM companies WHERE installation_id = $1 AND name = $2`, [site.id, name])).toEqual(
      [],
    );
    const next = await post('/v2/companies.json', { company: { name: `After ${Date.now()}` } });
    expect(next.status, next.text).toBe(201);
  }, 60_000);

  it('an interactive write: 503 past the transaction deadline, rolled back; then the next works', async () => {
    // an import's start whose rows are more than one HTTP exchange carries stages them over a connection of its own
    const importing = (name: string) => sendCsv(`name,details\n${name},${'x'.repeat(4 * 1024 * 1024 + 1)}\n`);
    const jobsBefore = await rows(`SELECT count(*)::int AS n FROM background_jobs WHERE installation_id = $1`, [
      site.id,
    ]);
    stall();
    let refused;
    try {
      refused = await importing(`Stalled import ${Date.now()}`);
    } finally {
      resume();
    }
    expect(refused.status, refused.text).toBe(503);
    expect(refused.ms).toBeGreaterThan(19_000);
    expect(refused.ms).toBeLessThan(26_000);
    expect(await rows(`SELECT count(*)::int AS n FROM background_jobs WHERE installation_id = $1`, [site.id])).toEqual(
      jobsBefore,
    );
    const next = await importing(`After import ${Date.now()}`);
    expect(next.status, next.text).toBe(201);
  }, 60_000);
});
