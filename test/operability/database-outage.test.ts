import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack, type LocalStack } from '../../scripts/stack';
import { createInstallation, type SeededInstallation } from '../../scripts/seed';
import { startWorker, type WorkerUnderTest } from '../../scripts/worker-under-test';
import { eventually, joinRoom } from '../support/room';
import { workerLogs } from '../setup/worker-logs';
import { checkAnswer, checkedFetch, type ApiResponse } from '../support/contract';

// What the service does while its database does not answer: a room keeps accepting messages and
// stores them once it is back; every route answers 503 with Retry-After, never a 500, over the
// driver's HTTP mode (reads, the credential look-up) and its WebSocket mode (a write's
// transaction); /health says so within 2 s. This file brings up its own database and Worker: it
// takes the database away, which the shared stack of the other files must never see.
let stack: LocalStack;
let worker: WorkerUnderTest;
let pool: pg.Pool;
let site: SeededInstallation;
const logs = workerLogs();

beforeAll(async () => {
  stack = await startLocalStack({ purpose: 'test' });
  // Its log lines kept, not printed, as the shared Worker's are (HELPDESK_TEST_LOGS=1 prints them).
  worker = await startWorker(stack, {
    outdir: path.resolve(`.wrangler/test-outage-${process.pid}`),
    onLogLine: logs.handle,
  });
  pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
  const client = await pool.connect();
  try {
    site = await createInstallation(client, `outage-${Date.now()}`);
  } finally {
    client.release();
  }
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await worker?.stop();
  await stack?.stop();
});

const storedCount = async (conversationId: number) =>
  (
    await pool.query('SELECT count(*)::int AS n FROM conversation_messages WHERE conversation_id = $1', [
      conversationId,
    ])
  ).rows[0].n as number;

describe('a message sent while the database is down', () => {
  it('is accepted by the room, and stored exactly once when the database is back', async () => {
    // This file's own Worker: fetched here, the answer checked against the document as api() checks its own.
    const url = `${worker.url}/v2/conversations.json`;
    const created = await checkAnswer<{ conversation: { id: number; socketUrl: string } }>(
      'POST',
      url,
      await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${site.users.agent.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ conversation: { contact: { name: 'Grace' } } }),
      }),
    );
    expect(created.status, created.text).toBe(201);
    const { conversation } = created.body;
    const contact = await joinRoom(conversation.socketUrl);
    await contact.next('welcome');

    await stack.cutDatabase();
    let accepted;
    try {
      contact.send({ type: 'message', message: 'Are you there?', clientId: 'while-down' });
      accepted = await contact.next('message');
      expect(accepted).toMatchObject({ clientId: 'while-down', message: 'Are you there?' });
      // Several delivery attempts fail meanwhile (1 s, 2 s apart): nothing reaches Postgres.
      await new Promise((resolve) => setTimeout(resolve, 3500));
      expect(await storedCount(conversation.id)).toBe(0);
    } finally {
      await stack.restoreDatabase();
    }

    await eventually(async () => ((await storedCount(conversation.id)) === 1 ? true : undefined), 30_000);
    // Later retries or redeliveries write nothing twice.
    contact.send({ type: 'message', message: 'Are you there?', clientId: 'while-down' });
    expect((await contact.next('message')).id).toBe(accepted.id);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await storedCount(conversation.id)).toBe(1);
    const [row] = (
      await pool.query('SELECT message, author, client_id FROM conversation_messages WHERE conversation_id = $1', [
        conversation.id,
      ])
    ).rows;
    expect(row).toMatchObject({ message: 'Are you there?', author: 'contact' });
    await contact.close();
  }, 60_000);
});

describe('GET /health while the database is down', () => {
  it('answers 503 within 2 s, saying the database does not answer, and 200 again once it is back', async () => {
    await stack.cutDatabase();
    try {
      const started = Date.now();
      const answer = await fetch(`${worker.url}/health`);
      const elapsed = Date.now() - started;
      const response = await checkAnswer('GET', answer.url, answer);
      expect(response.status).toBe(503);
      expect(response.body).toEqual({
        status: 'unavailable',
        database: 'unreachable',
        environment: expect.any(String),
      });
      expect(response.headers.get('retry-after')).toBe('5');
      expect(response.headers.get('x-request-id')).toBeTruthy();
      expect(elapsed).toBeLessThan(2_000);
    } finally {
      await stack.restoreDatabase();
    }
    await eventually(
      async () => ((await checkedFetch(`${worker.url}/health`)).status === 200 ? true : undefined),
      10_000,
    );
  }, 30_000);
});

/** A request to this file's Worker; the answer is checked against the OpenAPI document as every test's is. */
async function call(
  pathname: string,
  init: { method?: string; key?: string; body?: unknown } = {},
): Promise<ApiResponse> {
  const url = `${worker.url}${pathname}`;
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = {};
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return checkAnswer(
    method,
    url,
    await fetch(url, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) }),
  );
}

function expectUnavailable(answer: ApiResponse, what: string): void {
  expect(answer.status, `${what}: ${answer.text}`).toBe(503);
  expect(answer.headers.get('retry-after'), what).toBe('5');
  expect(answer.headers.get('x-request-id'), what).toBeTruthy();
  expect(answer.body, what).toEqual({
    errors: [{ code: 'unavailable', detail: expect.stringMatching(/database does not answer/) }],
    requestId: answer.headers.get('x-request-id'),
  });
}

describe('a request while the database does not answer', () => {
  it('is a 503 unavailable with Retry-After (reads, writes in a transaction, the credential look-up), and served again once it is back', async () => {
    const agent = site.users.agent.apiKey;
    // The agent's credential is now remembered by the isolate: its requests reach the handlers.
    expect((await call('/v2/companies.json', { key: agent })).status).toBe(200);

    await stack.cutDatabase();
    try {
      expectUnavailable(await call('/v2/companies.json', { key: agent }), 'a list over HTTP');
      expectUnavailable(
        await call('/v2/companies.json', { method: 'POST', key: agent, body: { company: { name: 'Down Co' } } }),
        'a create in a transaction',
      );
      expectUnavailable(
        await call('/v2/conversations.json', {
          method: 'POST',
          key: agent,
          body: { conversation: { contact: { name: 'Ada' } } },
        }),
        'a conversation',
      );
      // A credential not seen yet cannot be checked: the service is unavailable, the caller is not refused.
      expectUnavailable(await call('/v2/companies.json', { key: site.users.owner.apiKey }), 'an unchecked credential');
      // What does not need the database is still served.
      expect((await call('/v2/openapi.json')).status).toBe(200);
      expect(logs.matching({ message: 'database unavailable' }).length).toBeGreaterThanOrEqual(4);
      expect(logs.matching({ message: 'request failed' })).toEqual([]);
    } finally {
      await stack.restoreDatabase();
    }

    await eventually(
      async () =>
        (await call('/v2/companies.json', { key: site.users.owner.apiKey })).status === 200 ? true : undefined,
      10_000,
    );
    const created = await call('/v2/companies.json', {
      method: 'POST',
      key: agent,
      body: { company: { name: 'Back Co' } },
    });
    expect(created.status, created.text).toBe(201);
  }, 60_000);
});
