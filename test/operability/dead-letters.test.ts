// No queue message is lost silently: one whose consumer fails every delivery moves, after the
// queue's max_retries, to its dead-letter queue, whose consumer stores it in `dead_letters`; an
// operator reads it and puts it back on its queue, or sets it aside. Real Miniflare queues with
// wrangler.toml's settings, through this file's own Worker: the service plus a consumer that fails
// on purpose (flaky-worker.ts), failed messages coming back at once (JOB_RETRY_BASE_SECONDS=0).
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { serveWorker, startWorker, type WorkerUnderTest } from '../../scripts/worker-under-test';
import { DEV_OPERATOR_TOKEN } from '../../scripts/worker-vars';
import { workerLogs } from '../setup/worker-logs';
import { api } from '../support/api';
import { checkAnswer, type ApiResponse } from '../support/contract';
import { newInstallation, rows } from '../support/db';
import { eventually } from '../support/room';

const outdir = path.resolve(`.wrangler/test-dead-letters-${process.pid}`);
let worker: WorkerUnderTest;
let site: SeededInstallation;
// the failures this file causes on purpose are kept for it to read, not printed
const logs = workerLogs({
  expected: (line) => String(line.kind).startsWith('test.') || line.message === 'queue: message dead-lettered',
});

beforeAll(async () => {
  site = await newInstallation('dead-letters');
  worker = await startWorker(inject('stackParts'), {
    outdir,
    entry: fileURLToPath(new URL('./flaky-worker.ts', import.meta.url)),
    onLogLine: logs.handle,
    vars: { JOB_RETRY_BASE_SECONDS: '0' },
  });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await rm(outdir, { recursive: true, force: true });
});

/** An operator's request to this file's Worker, with the operator token unless `token` says otherwise; checked against the document. */
async function operator(pathname: string, init: { method?: string; token?: string | null } = {}): Promise<ApiResponse> {
  const url = `${worker.url}${pathname}`;
  const method = init.method ?? 'GET';
  const token = init.token === undefined ? DEV_OPERATOR_TOKEN : init.token;
  return checkAnswer(
    method,
    url,
    await fetch(url, { method, headers: token ? { authorization: `Bearer ${token}` } : {} }),
  );
}

interface DeadLetterRow {
  id: number;
  installation_id: number | null;
  queue: string;
  message_id: string;
  body: Record<string, unknown>;
  attempts: number;
  sent_at: Date;
  dead_at: Date;
  replayed_at: Date | null;
  discarded_at: Date | null;
}

const stored = (nonce: string) =>
  rows<DeadLetterRow>("SELECT * FROM dead_letters WHERE body->>'nonce' = $1 ORDER BY id", [nonce]);

/** Waits for `count` dead letters of the nonce. */
const storedEventually = (nonce: string, count = 1) =>
  eventually(async () => {
    const found = await stored(nonce);
    return found.length >= count ? found : undefined;
  }, 20_000);

const newNonce = () => `dl-${Math.random().toString(36).slice(2, 12)}`;

const QUEUES = [
  { binding: 'JOBS', queue: 'helpdesk-jobs' },
  { binding: 'WEBHOOKS', queue: 'helpdesk-webhooks' },
  { binding: 'MAIL_OUT', queue: 'helpdesk-mail' },
] as const;

describe('a message whose consumer fails every delivery', () => {
  it.each(QUEUES)(
    'on $queue is stored after max_retries, once; replayed, it goes back on $queue',
    async ({ binding, queue }) => {
      const nonce = newNonce();
      const body = { kind: 'test.flaky', nonce, failures: 1_000, installationId: site.id };
      const sentAt = Date.now();
      await (await worker.miniflare.getQueueProducer(binding)).send(body);

      const [letter] = await storedEventually(nonce);
      expect(letter).toMatchObject({
        queue,
        installation_id: site.id,
        body,
        attempts: 6,
        replayed_at: null,
        discarded_at: null,
      });
      expect(letter!.sent_at.getTime()).toBeGreaterThanOrEqual(sentAt - 1_000);
      expect(letter!.dead_at.getTime()).toBeGreaterThanOrEqual(letter!.sent_at.getTime());
      // the first delivery and max_retries (5) more, each failed, before it died
      const failures = logs.matching({ message: 'jobs: consumer failed', messageId: letter!.message_id });
      expect(failures.map((line) => line.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
      // logged once it is stored
      const [logged] = await eventually(async () => {
        const lines = logs.matching({ message: 'queue: message dead-lettered', deadLetterId: String(letter!.id) });
        return lines.length ? lines : undefined;
      });
      expect(logged).toMatchObject({
        level: 'error',
        queue,
        kind: 'test.flaky',
        installationId: site.id,
        attempts: 6,
        messageId: letter!.message_id,
      });

      const read = await operator(`/operator/deadletters/${letter!.id}.json`);
      expect(read.status, read.text).toBe(200);
      expect(read.body.deadLetter).toMatchObject({
        id: letter!.id,
        state: 'open',
        queue,
        installationId: site.id,
        kind: 'test.flaky',
        body,
        attempts: 6,
        messageId: letter!.message_id,
        replayedAt: null,
        discardedAt: null,
      });
      const listed = await operator(`/operator/deadletters.json?installationId=${site.id}&queue=${queue}`);
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.deadLetters.map((d: { id: number }) => d.id)).toContain(letter!.id);

      const replayed = await operator(`/operator/deadletters/${letter!.id}/replay.json`, { method: 'POST' });
      expect(replayed.status, replayed.text).toBe(202);
      expect(replayed.body.deadLetter).toMatchObject({
        id: letter!.id,
        state: 'replayed',
        replayedAt: expect.any(String),
        discardedAt: null,
      });
      // its consumer still fails: back on the same queue, it dies there again, a new dead letter
      const [, second] = await storedEventually(nonce, 2);
      expect(second).toMatchObject({ queue, body, replayed_at: null, discarded_at: null });
      expect(second!.message_id).not.toBe(letter!.message_id);
      expect((await stored(nonce))[0]!.replayed_at).toBeInstanceOf(Date);
      const open = await operator(`/operator/deadletters.json?installationId=${site.id}&queue=${queue}`);
      expect(open.body.deadLetters.map((d: { id: number }) => d.id)).toEqual(expect.arrayContaining([second!.id]));
      expect(open.body.deadLetters.map((d: { id: number }) => d.id)).not.toContain(letter!.id);

      const again = await operator(`/operator/deadletters/${letter!.id}/replay.json`, { method: 'POST' });
      expect(again.status, again.text).toBe(409);
      expect(again.body.errors[0]).toMatchObject({
        code: 'conflict',
        source: 'id',
        detail: expect.stringMatching(/replayed already/),
      });
      expect((await operator(`/operator/deadletters/${letter!.id}/discard.json`, { method: 'POST' })).status).toBe(409);

      // the one nobody will replay is set aside: it leaves the open ones
      const discarded = await operator(`/operator/deadletters/${second!.id}/discard.json`, { method: 'POST' });
      expect(discarded.status, discarded.text).toBe(200);
      expect(discarded.body.deadLetter).toMatchObject({
        id: second!.id,
        state: 'discarded',
        discardedAt: expect.any(String),
        replayedAt: null,
      });
      expect((await stored(nonce))[1]!.discarded_at).toBeInstanceOf(Date);
      const setAside = await operator(
        `/operator/deadletters.json?state=discarded&installationId=${site.id}&queue=${queue}`,
      );
      expect(setAside.body.deadLetters.map((d: { id: number }) => d.id)).toContain(second!.id);
      expect((await operator(`/operator/deadletters/${second!.id}/replay.json`, { method: 'POST' })).status).toBe(409);
    },
    60_000,
  );

  it('is run again once replayed: a consumer that recovered takes it, and nothing dies again', async () => {
    const nonce = newNonce();
    await (await worker.miniflare.getQueueProducer('JOBS')).send({ kind: 'test.flaky', nonce, failures: 6 });
    const [letter] = await storedEventually(nonce);
    expect(letter!.installation_id).toBeNull();
    expect((await operator(`/operator/deadletters/${letter!.id}/replay.json`, { method: 'POST' })).status).toBe(202);
    const [done] = await eventually(async () => {
      const lines = logs.matching({ message: 'test: flaky message done', nonce });
      return lines.length ? lines : undefined;
    }, 20_000);
    // the seventh delivery: the six that failed, then the replay's
    expect(done).toMatchObject({ delivery: 7 });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const after = await stored(nonce);
    expect(after).toHaveLength(1);
    expect(after[0]!.replayed_at).toBeInstanceOf(Date);
  }, 60_000);

  it('of a kind no consumer knows is dead-lettered too, never dropped', async () => {
    const nonce = newNonce();
    await (await worker.miniflare.getQueueProducer('JOBS')).send({ kind: 'test.no-such-kind', nonce });
    const [letter] = await storedEventually(nonce);
    expect(letter).toMatchObject({ queue: 'helpdesk-jobs', attempts: 6, body: { kind: 'test.no-such-kind', nonce } });
    expect(logs.matching({ message: 'jobs: no consumer for this kind', messageId: letter!.message_id })).toHaveLength(
      6,
    );
    expect((await operator(`/operator/deadletters/${letter!.id}/discard.json`, { method: 'POST' })).status).toBe(200);
  }, 60_000);
});

describe('the dead-letter consumer', () => {
  it('stores a dead message delivered twice once, naming the installation the message names', async () => {
    const service = await worker.miniflare.getWorker();
    const nonce = newNonce();
    const hinted = {
      kind: 'webhooks.deliver',
      deliveryIds: [1],
      records: [{ eventId: 1, installationId: site.id, recordType: 'tickets', recordId: 1, ticketId: 1 }],
      nonce,
    };
    const message = { id: `twice-${nonce}`, timestamp: new Date(Date.now() - 60_000), body: hinted, attempts: 1 };
    for (const attempts of [1, 2]) {
      const result = await service.queue('helpdesk-webhooks-dlq', [{ ...message, attempts }]);
      expect(result.outcome).toBe('ok');
      expect(result.ackAll).toBe(true);
    }
    const letters = await stored(nonce);
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      queue: 'helpdesk-webhooks',
      message_id: `twice-${nonce}`,
      installation_id: site.id,
      body: hinted,
      attempts: 6,
    });
    expect(letters[0]!.sent_at.getTime()).toBe(message.timestamp.getTime());
    const logged = await eventually(async () => {
      const lines = logs.matching({ message: 'queue: message dead-lettered', messageId: `twice-${nonce}` });
      return lines.length ? lines : undefined;
    });
    expect(logged).toHaveLength(1);
    expect((await operator(`/operator/deadletters/${letters[0]!.id}/discard.json`, { method: 'POST' })).status).toBe(
      200,
    );
  });
});

describe('the operator routes', () => {
  it("take the operator token only: not an installation's API key, nor another token", async () => {
    for (const token of [null, site.users.owner.apiKey, 'not-the-operator-token-0123456789abcdef']) {
      const answer = await operator('/operator/deadletters.json', { token });
      expect(answer.status, String(token)).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(answer.body.errors[0].code).toBe('unauthorized');
    }
    // the shared Worker too, through the API's own client
    expect((await api('/operator/deadletters.json', { key: site.users.owner.apiKey })).status).toBe(401);
    expect((await api('/operator/deadletters.json', { key: DEV_OPERATOR_TOKEN })).status).toBe(200);
  });

  it('answer a clear 4xx for what does not exist or is malformed', async () => {
    for (const [method, suffix] of [
      ['GET', '.json'],
      ['POST', '/replay.json'],
      ['POST', '/discard.json'],
    ] as const) {
      const missing = await operator(`/operator/deadletters/2147483647${suffix}`, { method });
      expect(missing.status, `${method} ${suffix}`).toBe(404);
      expect(missing.body.errors[0]).toMatchObject({ code: 'notFound', source: 'id' });
    }
    const badId = await operator('/operator/deadletters/abc.json');
    expect(badId.status).toBe(400);
    expect(badId.body.errors[0].source).toBe('id');
    for (const [query, source] of [
      ['state=sideways', 'state'],
      ['queue=helpdesk-nothing', 'queue'],
      ['installationId=0', 'installationId'],
      ['installationId=x', 'installationId'],
      ['pageSize=1000', 'pageSize'],
    ]) {
      const answer = await operator(`/operator/deadletters.json?${query}`);
      expect(answer.status, query).toBe(400);
      expect(
        answer.body.errors.map((e: { source: string }) => e.source),
        query,
      ).toContain(source);
    }
  });

  it('are off, 403, where no operator token of 32 characters or more is set', async () => {
    const weak = await serveWorker(inject('stackParts'), inject('workerScript'), {
      vars: { OPERATOR_TOKEN: 'short' },
      onLogLine: logs.handle,
    });
    try {
      const url = `${weak.url}/operator/deadletters.json`;
      const answer = await checkAnswer('GET', url, await fetch(url, { headers: { authorization: 'Bearer short' } }));
      expect(answer.status).toBe(403);
      expect(answer.body.errors[0]).toMatchObject({
        code: 'forbidden',
        detail: expect.stringMatching(/OPERATOR_TOKEN/),
      });
    } finally {
      await weak.stop();
    }
  }, 60_000);
});
