import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack, type LocalStack } from '../../scripts/stack';
import { createInstallation, type SeededInstallation } from '../../scripts/seed';
import { startWorker, type WorkerUnderTest } from '../../scripts/worker-under-test';
import { eventually, joinRoom } from '../support/room';

// This file brings up its own database and Worker: it takes the database away, which the
// shared stack of the other files must never see.
let stack: LocalStack;
let worker: WorkerUnderTest;
let pool: pg.Pool;
let site: SeededInstallation;

beforeAll(async () => {
  stack = await startLocalStack({ purpose: 'test' });
  worker = await startWorker(stack, { outdir: path.resolve(`.wrangler/test-outage-${process.pid}`) });
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
  (await pool.query('SELECT count(*)::int AS n FROM conversation_messages WHERE conversation_id = $1', [conversationId])).rows[0].n as number;

describe('a message sent while the database is down', () => {
  it('is accepted by the room, and stored exactly once when the database is back', async () => {
    const created = await fetch(`${worker.url}/v2/conversations.json`, {
      method: 'POST',
      headers: { authorization: `Bearer ${site.users.agent.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ conversation: { contact: { name: 'Grace' } } }),
    });
    expect(created.status).toBe(201);
    const { conversation } = (await created.json()) as { conversation: { id: number; socketUrl: string } };
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
    const [row] = (await pool.query('SELECT message, author, client_id FROM conversation_messages WHERE conversation_id = $1', [conversation.id])).rows;
    expect(row).toMatchObject({ message: 'Are you there?', author: 'contact' });
    await contact.close();
  }, 60_000);
});

describe('GET /health while the database is down', () => {
  it('answers 503 within 2 s, saying the database does not answer, and 200 again once it is back', async () => {
    await stack.cutDatabase();
    try {
      const started = Date.now();
      const response = await fetch(`${worker.url}/health`);
      const elapsed = Date.now() - started;
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ status: 'unavailable', database: 'unreachable', environment: expect.any(String) });
      expect(response.headers.get('retry-after')).toBe('5');
      expect(response.headers.get('x-request-id')).toBeTruthy();
      expect(elapsed).toBeLessThan(2_000);
    } finally {
      await stack.restoreDatabase();
    }
    await eventually(async () => ((await fetch(`${worker.url}/health`)).status === 200 ? true : undefined), 10_000);
  }, 30_000);
});
