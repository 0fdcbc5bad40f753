// POST /v2/webhookendpoints/{id}/test.json with real HTTP receivers started here: one signed
// `webhook.test` sent now and answered with its outcome, logged as a delivery; a receiver failing,
// unreachable or refused described by a 200 and never tried again; a switched-off endpoint tested
// and left off; who may test which endpoint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { runCron } from '../support/cron';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { sendJobMessage } from '../support/queue';
import { withRoundTrips } from '../support/round-trips';
import { receiver, sign, TOKEN } from './receiver';

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
const receivers: ReturnType<typeof receiver>[] = [];

const listen = (statuses?: (number | 'hang')[]) => {
  const made = receiver(statuses);
  receivers.push(made);
  return made;
};
// narrowed to an event nothing here makes: whatever the endpoint wants, the test event is sent
const endpoint = async (url: string, extra: Record<string, unknown> = {}, key = admin) => {
  const made = await api('/v2/webhookendpoints.json', {
    method: 'POST',
    key,
    body: {
      webhookendpoint: {
        url,
        token: TOKEN,
        allEvents: false,
        webhookendpointevents: [{ code: 'tag.deleted' }],
        ...extra,
      },
    },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.webhookendpoint as { id: number };
};
const sendTest = (id: number | string, key = admin) =>
  api(`/v2/webhookendpoints/${id}/test.json`, { method: 'POST', key });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  site = await newInstallation('webhook-test-event');
  other = await newInstallation('webhook-test-event-other');
  admin = site.users.admin.apiKey;
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

describe('a test event', () => {
  it('reaches the endpoint once, signed as every delivery, and is answered and logged as delivered, in two exchanges', async () => {
    const hook = listen();
    const hooked = await endpoint(await hook.url);
    const { answer, trips } = await withRoundTrips(`/v2/webhookendpoints/${hooked.id}/test.json`, {
      method: 'POST',
      key: admin,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(trips).toBe(2);

    expect(hook.requests).toHaveLength(1);
    const { headers, body, json } = hook.requests[0]!;
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-desk-event']).toBe('webhook.test');
    expect(headers['x-desk-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    expect(headers['x-desk-signature']).toBe(sign(body));
    expect(headers['x-desk-timestamp-signature']).toBe(
      sign(`${headers['x-desk-timestamp']}.${headers['x-desk-delivery']}.${body}`),
    );
    expect(Math.abs(Number(headers['x-desk-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(Object.keys(json)).toEqual(['event', 'occurredAt', 'eventCreatorId', 'webhookendpoint']);
    expect(json).toMatchObject({
      event: 'webhook.test',
      eventCreatorId: site.users.admin.id,
      webhookendpoint: { id: hooked.id, url: await hook.url, enabled: true },
    });
    expect(Math.abs(Date.parse(json.occurredAt) - Date.now())).toBeLessThan(60_000);
    expect(body).not.toContain(TOKEN);

    const delivery = answer.body.webhookdelivery;
    expect(delivery).toMatchObject({
      endpoint: { id: hooked.id, type: 'webhookendpoints' },
      event: 'webhook.test',
      deliveryId: headers['x-desk-delivery'],
      ticket: null,
      status: 'delivered',
      attempts: 1,
      statusCode: 200,
      lastError: null,
      nextAttemptAt: null,
      payload: body,
    });
    expect(Number.isInteger(delivery.latencyMs)).toBe(true);
    expect(delivery.deliveredAt).not.toBeNull();
    expect(delivery.lastAttemptAt).not.toBeNull();

    const log = await api(`/v2/webhookendpoints/${hooked.id}/deliveries.json`, {
      key: admin,
      query: { filter: { event: 'webhook.test' } },
    });
    expect(log.status, log.text).toBe(200);
    expect(log.body.webhookdeliveries).toEqual([delivery]);
  });

  it('answers a receiver answering 500 with a 200 saying failed, and is never tried again: not by the queue, the sweep, or a redelivery', async () => {
    const hook = listen([500, 200]);
    const hooked = await endpoint(await hook.url);
    const answer = await sendTest(hooked.id);
    expect(answer.status, answer.text).toBe(200);
    const delivery = answer.body.webhookdelivery;
    expect(delivery).toMatchObject({
      event: 'webhook.test',
      status: 'failed',
      attempts: 1,
      statusCode: 500,
      lastError: null,
      nextAttemptAt: null,
      deliveredAt: null,
    });
    expect(hook.requests.map((r) => r.answered)).toEqual([500]);

    await sendJobMessage({ kind: 'webhooks.deliver', deliveryIds: [delivery.id], queuedAt: Date.now() });
    await runCron();
    expectError(
      await api(`/v2/webhookendpoints/${hooked.id}/deliveries/${delivery.id}/redeliver.json`, {
        method: 'POST',
        key: admin,
      }),
      409,
      'deliveryId',
      /test event/,
    );
    // past the local stack's first retry (1 s)
    await pause(3_000);
    expect(hook.requests).toHaveLength(1);
    expect(
      await rows('SELECT status, attempts, next_attempt_at FROM webhook_deliveries WHERE id = $1', [delivery.id]),
    ).toEqual([{ status: 'failed', attempts: 1, next_attempt_at: null }]);
    // nor does it count towards switching the endpoint off
    expect(await rows('SELECT enabled, failing_since FROM webhook_endpoints WHERE id = $1', [hooked.id])).toEqual([
      { enabled: true, failing_since: null },
    ]);
  });

  it('answers an unreachable receiver and a refused address with a 200 saying why, sending nothing to the refused one', async () => {
    const gone = await endpoint('http://127.0.0.1:9/nobody');
    const unreachable = await sendTest(gone.id);
    expect(unreachable.status, unreachable.text).toBe(200);
    expect(unreachable.body.webhookdelivery).toMatchObject({
      status: 'failed',
      attempts: 1,
      statusCode: null,
      lastError: 'could not connect',
    });

    // an address that came to be private after it was written (as a name that now resolves to one)
    const moved = await endpoint('http://127.0.0.1:9/moved');
    await rows(`UPDATE webhook_endpoints SET url = 'http://10.0.0.1/hook' WHERE id = $1`, [moved.id]);
    const { answer, trips } = await withRoundTrips(`/v2/webhookendpoints/${moved.id}/test.json`, {
      method: 'POST',
      key: admin,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(trips).toBe(2);
    expect(answer.body.webhookdelivery).toMatchObject({
      status: 'failed',
      attempts: 1,
      statusCode: null,
      latencyMs: 0,
      lastError: 'refused: 10.0.0.1 is a loopback, private or link-local address',
    });
    const log = await api(`/v2/webhookendpoints/${moved.id}/deliveries.json`, { key: admin });
    expect(log.body.webhookdeliveries.map((d: { id: number; status: string }) => [d.id, d.status])).toEqual([
      [answer.body.webhookdelivery.id, 'failed'],
    ]);
  });

  it('may be sent to a switched-off endpoint, by an owner too, which stays off', async () => {
    const owner = site.users.owner.apiKey;
    const hook = listen();
    const hooked = await endpoint(await hook.url, { enabled: false }, owner);
    const answer = await sendTest(hooked.id, owner);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.webhookdelivery).toMatchObject({ status: 'delivered', statusCode: 200 });
    expect(hook.requests).toHaveLength(1);
    expect(hook.requests[0]!.json).toMatchObject({
      eventCreatorId: site.users.owner.id,
      webhookendpoint: { id: hooked.id, enabled: false },
    });
    expect((await api(`/v2/webhookendpoints/${hooked.id}.json`, { key: owner })).body.webhookendpoint).toMatchObject({
      enabled: false,
    });
  });

  it("is refused for another installation's, a deleted or an unknown endpoint (404), to an agent (403) and for an id that is no integer (400), sending nothing", async () => {
    const theirs = listen();
    const theirEndpoint = await endpoint(await theirs.url, {}, other.users.admin.apiKey);
    const ours = listen();
    const hooked = await endpoint(await ours.url);

    const foreign = await withRoundTrips(`/v2/webhookendpoints/${theirEndpoint.id}/test.json`, {
      method: 'POST',
      key: admin,
    });
    expectError(foreign.answer, 404, 'id', new RegExp(`webhookendpoint ${theirEndpoint.id} not found`));
    expect(foreign.trips).toBe(1);
    expectError(await sendTest(hooked.id, site.users.agent.apiKey), 403);
    expectError(await sendTest(2_000_000_000), 404, 'id');
    expectError(await sendTest('abc'), 400, 'id');
    expect((await api(`/v2/webhookendpoints/${hooked.id}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
    expectError(await sendTest(hooked.id), 404, 'id');

    expect(theirs.requests).toEqual([]);
    expect(ours.requests).toEqual([]);
    expect(
      await rows('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = ANY($1)', [
        [theirEndpoint.id, hooked.id],
      ]),
    ).toEqual([{ n: 0 }]);
  });

  it('is declared in the reference: its operation, description and answers', async () => {
    const operation = (await api('/v2/openapi.json')).body.paths['/v2/webhookendpoints/{id}/test.json'].post;
    expect(operation).toMatchObject({ operationId: 'testWebhookEndpoint', summary: 'Send an endpoint a test event' });
    expect(operation.description).toMatch(/^Sends the endpoint one `webhook\.test` event now/);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404']));
  });
});
