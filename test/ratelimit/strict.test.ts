// The limits as a deployment has them, on a Worker of this file's own (the same bundle and
// database as the others, served by Miniflare with the real defaults: the shared Worker's are out
// of the other tests' way): 120 requests a minute per teammate, 5 failed authentications a minute
// per client address (20 by default; 5 here to reach it quickly), 5 messages a minute per
// participant in a room (120 by default).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { serveWorker, type WorkerUnderTest } from '../../scripts/worker-under-test';
import { hashSecret } from '../../src/auth/secrets';
import { checkAnswer } from '../support/contract';
import { newInstallation, rows } from '../support/db';
import { eventually, joinRoom, type RoomClient } from '../support/room';
import { earlyInAMinute } from './minute';

let worker: WorkerUnderTest;
let site: SeededInstallation;
const opened: RoomClient[] = [];

const call = async (path: string, init: { key?: string; method?: string; body?: unknown } = {}) => {
  const headers: Record<string, string> = init.key ? { authorization: `Bearer ${init.key}` } : {};
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const url = `${worker.url}${path}`;
  return checkAnswer(
    init.method ?? 'GET',
    url,
    await fetch(url, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    }),
  );
};

beforeAll(async () => {
  worker = await serveWorker(inject('stackParts'), inject('workerScript'), {
    vars: {
      RATE_LIMIT_PER_MINUTE: '120',
      AUTH_FAILURES_PER_MINUTE: '5',
      ROOM_MESSAGES_PER_MINUTE: '5',
      PUBLIC_READS_PER_MINUTE: '5',
    },
  });
  site = await newInstallation('strict-limits');
}, 60_000);

afterAll(async () => {
  await Promise.all(opened.map((client) => client.close()));
  await worker?.stop();
});

describe("a deployment's limits", () => {
  it('let a teammate make 120 requests a minute, then answer 429', async () => {
    await earlyInAMinute();
    const key = site.users.agent.apiKey;
    const statuses: number[] = [];
    for (let i = 0; i < 120; i++) statuses.push((await call('/v2/me.json', { key })).status);
    expect(statuses.every((status) => status === 200)).toBe(true);
    const refused = await call('/v2/me.json', { key });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-rate-limit-limit')).toBe('120');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it("refuse a participant's sixth message in a minute in a room, storing five, the others going on", async () => {
    await earlyInAMinute();
    const created = await call('/v2/conversations.json', {
      method: 'POST',
      key: site.users.admin.apiKey,
      body: { conversation: { contact: { name: 'Flood' } } },
    });
    expect(created.status, created.text).toBe(201);
    const socketUrl = String(created.body.conversation.socketUrl ?? created.body.socketUrl);
    const roomUrl = socketUrl.replace(/^https?:\/\/[^/]+/, worker.url.replace(/^http/, 'ws'));
    const contact = await joinRoom(roomUrl);
    opened.push(contact);
    await contact.next('welcome');
    for (let i = 1; i <= 6; i++) contact.send({ type: 'message', message: `flood ${i}`, clientId: `flood-${i}` });
    for (let i = 1; i <= 5; i++) await contact.next('message');
    const refused = await contact.next('error');
    expect(refused).toMatchObject({ code: 'rate_limited', clientId: 'flood-6' });
    expect(refused.retryAfter).toBeGreaterThan(0);
    // the agent's own count: the room goes on
    const agent = await joinRoom(roomUrl, site.users.admin.apiKey);
    opened.push(agent);
    await agent.next('welcome');
    agent.send({ type: 'message', message: 'still here', clientId: 'agent-1' });
    expect((await contact.next('message')).message).toBe('still here');
    const stored = await eventually(async () => {
      const found = await rows<{ message: string }>(
        'SELECT message FROM conversation_messages WHERE conversation_id = $1 ORDER BY id',
        [created.body.conversation.id],
      );
      return found.length >= 6 ? found : undefined;
    }, 20_000);
    expect(stored.map((row) => row.message)).toEqual([
      'flood 1',
      'flood 2',
      'flood 3',
      'flood 4',
      'flood 5',
      'still here',
    ]);
  });

  it('count no failure for a secret once issued and now expired: an app sending stale tokens is not locked out', async () => {
    await earlyInAMinute();
    const stale = `hdo_stale_${Date.now()}`;
    await rows(
      `INSERT INTO credentials (installation_id, user_id, kind, name, prefix, secret_hash, expires_at) VALUES ($1, $2, 'oauth_access_token', 'stale', 'hdo_stal', $3, now() - interval '1 minute')`,
      [site.id, site.users.agent.id, await hashSecret(stale)],
    );
    const statuses = [] as number[];
    for (let i = 0; i < 8; i++) statuses.push((await call('/v2/me.json', { key: stale })).status);
    expect(statuses).toEqual(Array(8).fill(401));
    expect((await call('/v2/me.json', { key: site.users.admin.apiKey })).status).toBe(200);
  });

  it('limit what a public help centre reads per address, readable from any origin when refused', async () => {
    const subdomain = `strict-help-${site.id}`;
    // the admin's key: the owner's must stay unseen by this Worker for the failed-authentication test below
    const made = await call('/v2/helpdocssites.json', {
      method: 'POST',
      key: site.users.admin.apiKey,
      body: { helpdocssite: { name: 'Strict', subdomain, publicSiteEnabled: true } },
    });
    expect(made.status, made.text).toBe(201);
    await earlyInAMinute();
    const statuses = [] as number[];
    for (let i = 0; i < 5; i++) statuses.push((await call(`/v2/helpdocs/${subdomain}.json`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const refused = await call(`/v2/helpdocs/${subdomain}/articles.json`);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('refuse a client address that failed to authenticate 5 times in a minute, a good key too', async () => {
    await earlyInAMinute();
    const bad = [] as number[];
    for (let i = 0; i < 5; i++) bad.push((await call('/v2/me.json', { key: `not-a-key-${i}` })).status);
    expect(bad).toEqual([401, 401, 401, 401, 401]);
    const sixth = await call('/v2/me.json', { key: 'not-a-key-6' });
    expect(sixth.status).toBe(429);
    expect(sixth.body.errors[0]).toMatchObject({
      code: 'tooManyRequests',
      detail: expect.stringContaining('failed authentications from this address'),
    });
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    // a key this Worker has not seen yet is not looked up either: a guesser learns nothing
    expect((await call('/v2/me.json', { key: site.users.owner.apiKey })).status).toBe(429);
    // one it knows (seen in the last 30 s, above) still works
    expect((await call('/v2/tickets.json', { key: site.users.agent.apiKey })).status).not.toBe(401);
  });
});
