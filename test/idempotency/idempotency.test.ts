// Idempotency-Key on writes, as Stripe has it: the same key and request replay the first answer
// (24 hours), another request with the key is a 422, a request while the first runs is a 409;
// keys are per installation and teammate; an answer of 500 or more is not kept.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { runCron } from '../support/cron';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { checkedFetch } from '../support/contract';

let site: SeededInstallation;
let other: SeededInstallation;
let agent: string;
let inbox: number;

const ticketsCalled = (subject: string, installationId = site.id) =>
  rows<{ id: number }>('SELECT id FROM tickets WHERE installation_id = $1 AND subject = $2 ORDER BY id', [
    installationId,
    subject,
  ]);

const create = (key: string, subject: string, apiKey = agent, extra: Record<string, unknown> = {}) =>
  api('/v2/tickets.json', {
    method: 'POST',
    key: apiKey,
    headers: { 'Idempotency-Key': key },
    body: {
      ticket: {
        subject,
        inbox,
        customer: { email: 'idem@keys.test' },
        message: 'Once',
        notifyCustomer: false,
        ...extra,
      },
    },
  });

beforeAll(async () => {
  site = await newInstallation('idem');
  other = await newInstallation('idem-other');
  agent = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: agent })).body.inboxes[0].id;
});

describe('Idempotency-Key', () => {
  it('replays the first answer to the same key and request, and makes one ticket', async () => {
    const key = crypto.randomUUID();
    const first = await create(key, 'Once only');
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await create(key, 'Once only');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await ticketsCalled('Once only')).toHaveLength(1);
    // a write without a key, or a read with one, is as ever
    expect((await api('/v2/tickets.json', { key: agent, headers: { 'Idempotency-Key': key } })).status).toBe(200);
  });

  it('is in the document on every authenticated write, with its 409 and 422, and on no read', async () => {
    const document = (await api('/v2/openapi.json')).body as {
      paths: Record<
        string,
        Record<
          string,
          { parameters?: Array<{ name: string; in: string }>; responses: Record<string, unknown>; security?: unknown[] }
        >
      >;
    };
    let writes = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const named = (operation.parameters ?? []).some((p) => p.name === 'Idempotency-Key' && p.in === 'header');
        const publicRoute = Array.isArray(operation.security) && operation.security.length === 0;
        if (!named) {
          // a read, or a route without a teammate behind it (public, or with a credential of its own: a widget's, a provider's)
          expect(
            ['post', 'patch', 'put', 'delete'].includes(method) &&
              !publicRoute &&
              ['/v2/tickets.json', '/v2/tickets/{id}.json', '/v2/companies/update.json'].includes(path),
            `${method} ${path}`,
          ).toBe(false);
          continue;
        }
        writes++;
        expect(['post', 'patch', 'put', 'delete'], `${method} ${path}`).toContain(method);
        expect(publicRoute, `${method} ${path}`).toBe(false);
        expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['409', '422']));
      }
    }
    expect(writes).toBeGreaterThan(100);
  });

  it('refuses the key with another request (422) and a malformed key (400), changing nothing', async () => {
    const key = crypto.randomUUID();
    expect((await create(key, 'First body')).status).toBe(201);
    expectError(await create(key, 'Second body'), 422, 'Idempotency-Key');
    expectError(
      await api(`/v2/tickets/${(await ticketsCalled('First body'))[0]!.id}.json`, {
        method: 'PATCH',
        key: agent,
        headers: { 'Idempotency-Key': key },
        body: { ticket: { subject: 'x' } },
      }),
      422,
      'Idempotency-Key',
    );
    expect(await ticketsCalled('Second body')).toEqual([]);
    expectError(await create('x'.repeat(256), 'Too long a key'), 400, 'Idempotency-Key');
    expectError(await create('clé', 'Not ASCII'), 400, 'Idempotency-Key');
    expect(await ticketsCalled('Too long a key')).toEqual([]);
  });

  it("is the caller's own: another teammate, or another installation, with the same key writes its own", async () => {
    const key = crypto.randomUUID();
    expect((await create(key, 'Per caller')).status).toBe(201);
    expect((await create(key, 'Per caller', site.users.admin.apiKey)).status).toBe(201);
    expect(await ticketsCalled('Per caller')).toHaveLength(2);
    const theirInbox = (await api('/v2/inboxes.json', { key: other.users.agent.apiKey })).body.inboxes[0].id;
    const theirs = await api('/v2/tickets.json', {
      method: 'POST',
      key: other.users.agent.apiKey,
      headers: { 'Idempotency-Key': key },
      body: {
        ticket: {
          subject: 'Per caller',
          inbox: theirInbox,
          customer: { email: 'idem@keys.test' },
          message: 'x',
          notifyCustomer: false,
        },
      },
    });
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  });

  it('answers 409 while the first request runs; two sent at once make one ticket', async () => {
    const key = crypto.randomUUID();
    const body = JSON.stringify({
      ticket: {
        subject: 'In flight',
        inbox,
        customer: { email: 'idem@keys.test' },
        message: 'Once',
        notifyCustomer: false,
      },
    });
    // a request holding the key, as one still running would
    const digest = createHash('sha256').update(`POST /v2/tickets.json\n${body}`).digest('hex');
    await rows('INSERT INTO idempotency_keys (installation_id, user_id, key, request_digest) VALUES ($1, $2, $3, $4)', [
      site.id,
      site.users.agent.id,
      key,
      digest,
    ]);
    const held = await checkedFetch(`${inject('workerUrl')}/v2/tickets.json`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent}`, 'content-type': 'application/json', 'idempotency-key': key },
      body,
    });
    expect(held.status).toBe(409);
    expect(await ticketsCalled('In flight')).toEqual([]);
    // one that died holding it (past two minutes) leaves it to the retry
    await rows("UPDATE idempotency_keys SET started_at = now() - interval '3 minutes' WHERE key = $1", [key]);
    const retried = await checkedFetch(`${inject('workerUrl')}/v2/tickets.json`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent}`, 'content-type': 'application/json', 'idempotency-key': key },
      body,
    });
    expect(retried.status).toBe(201);
    expect(await ticketsCalled('In flight')).toHaveLength(1);

    const together = crypto.randomUUID();
    const both = await Promise.all([create(together, 'At once'), create(together, 'At once')]);
    expect(both.map((r) => r.status).sort()).toEqual(expect.arrayContaining([201]));
    for (const answer of both) expect([201, 409]).toContain(answer.status);
    expect(await ticketsCalled('At once')).toHaveLength(1);
  });

  it('lets a client retry after a timeout: however the first went, one ticket, and the retry answers it', async () => {
    const key = crypto.randomUUID();
    const body = {
      ticket: {
        subject: 'Timed out',
        inbox,
        customer: { email: 'idem@keys.test' },
        message: 'Once',
        notifyCustomer: false,
      },
    };
    // the client gives up at once: the first request may or may not have run
    await checkedFetch(`${inject('workerUrl')}/v2/tickets.json`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(1),
    }).catch(() => undefined);
    let retry = await create(key, 'Timed out');
    for (let tries = 0; retry.status === 409 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      retry = await create(key, 'Timed out');
    }
    expect(retry.status, retry.text).toBe(201);
    const made = await ticketsCalled('Timed out');
    expect(made).toHaveLength(1);
    expect(retry.body.ticket.id).toBe(made[0]!.id);
  });

  it('replays a 204 and a 4xx as they were, and is forgotten after 24 hours (the cron)', async () => {
    const key = crypto.randomUUID();
    const [ticket] = (await create(crypto.randomUUID(), 'To delete').then(() => ticketsCalled('To delete'))) as [
      { id: number },
    ];
    const removed = await api(`/v2/tickets/${ticket.id}.json`, {
      method: 'DELETE',
      key: agent,
      headers: { 'Idempotency-Key': key },
    });
    expect(removed.status).toBe(204);
    const again = await api(`/v2/tickets/${ticket.id}.json`, {
      method: 'DELETE',
      key: agent,
      headers: { 'Idempotency-Key': key },
    });
    expect(again.status).toBe(204);
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    const refusedKey = crypto.randomUUID();
    const refused = await create(refusedKey, '', agent);
    expect(refused.status).toBe(400);
    const refusedAgain = await create(refusedKey, '', agent);
    expect(refusedAgain.status).toBe(400);
    // the same errors; the body names the request that answered it, the replay its own
    expect({ ...refusedAgain.body, requestId: undefined }).toEqual({ ...refused.body, requestId: undefined });
    expect(refusedAgain.body.requestId).toBe(refusedAgain.headers.get('x-request-id'));
    expect(refusedAgain.body.requestId).not.toBe(refused.body.requestId);

    const old = crypto.randomUUID();
    expect((await create(old, 'Forgotten')).status).toBe(201);
    await rows("UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1", [old]);
    await runCron();
    expect(await rows('SELECT key FROM idempotency_keys WHERE key = $1', [old])).toEqual([]);
    const anew = await create(old, 'Forgotten');
    expect(anew.status).toBe(201);
    expect(anew.headers.get('idempotent-replayed')).toBeNull();
    expect(await ticketsCalled('Forgotten')).toHaveLength(2);
  });
});
