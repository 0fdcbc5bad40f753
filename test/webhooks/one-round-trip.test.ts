// A webhook endpoint's create and update are one exchange with the database (one HTTP batch): its
// events and inboxes, a switch on again that starts its failures afresh, a new address and token;
// the address is checked (resolved by DNS over HTTPS) and the token sealed in the Worker before the
// batch, so a refused address is a 400 with no exchange at all; a refusal inside the exchange
// answers the same 4xx as ever and leaves nothing written (docs/connection-strategy.md).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { eventsSince, lastEventId } from '../support/events';
import { withRoundTrips } from '../support/round-trips';
import { TOKEN } from './receiver';

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
let inbox: number;

beforeAll(async () => {
  site = await newInstallation('webhook-trips');
  other = await newInstallation('webhook-trips-other');
  admin = site.users.admin.apiKey;
  // the credential is looked up once, then remembered: the requests below are the write alone
  inbox = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
});

const tripsOf = (id: number, body: unknown, key = admin) =>
  withRoundTrips(`/v2/webhookendpoints/${id}.json`, {
    key,
    method: 'PATCH',
    body: { webhookendpoint: body },
    query: { includes: 'webhookendpointevents,webhookendpointinboxes' },
  });

const newEndpoint = async (key = admin) => {
  const made = await api('/v2/webhookendpoints.json', {
    method: 'POST',
    key,
    body: { webhookendpoint: { url: 'http://127.0.0.1:9/hook', token: TOKEN } },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.webhookendpoint.id as number;
};

describe('webhook endpoints in one round trip', () => {
  it('narrows an endpoint to events and inboxes, and switches one off by failures on again afresh, in one exchange each', async () => {
    const id = await newEndpoint();
    const narrowed = await tripsOf(id, {
      allEvents: false,
      allInboxes: false,
      webhookendpointevents: [{ code: 'ticket.created' }],
      webhookendpointinboxes: [{ inbox: { id: inbox } }],
    });
    expect(narrowed.answer.status, narrowed.answer.text).toBe(200);
    expect(narrowed.trips).toBe(1);
    expect(narrowed.answer.body.webhookendpoint).toMatchObject({ allEvents: false, allInboxes: false });
    expect(narrowed.answer.body.included.webhookendpointevents.map((e: { code: string }) => e.code)).toEqual([
      'ticket.created',
    ]);

    await rows(
      `UPDATE webhook_endpoints SET enabled = false, disabled_at = now(), failing_since = now() - interval '25 hours' WHERE id = $1`,
      [id],
    );
    const again = await tripsOf(id, { enabled: true });
    expect(again.answer.status, again.answer.text).toBe(200);
    expect(again.trips).toBe(1);
    expect(again.answer.body.webhookendpoint).toMatchObject({ enabled: true, disabledAt: null });
    expect(await rows(`SELECT failing_since FROM webhook_endpoints WHERE id = $1`, [id])).toEqual([
      { failing_since: null },
    ]);
  });

  it('creates an endpoint, and changes its address and token, in one exchange each; the token stored sealed', async () => {
    const made = await withRoundTrips('/v2/webhookendpoints.json', {
      key: admin,
      method: 'POST',
      body: {
        webhookendpoint: {
          url: 'http://127.0.0.1:9/made',
          token: TOKEN,
          allEvents: false,
          webhookendpointevents: [{ code: 'ticket.created' }],
        },
      },
    });
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(1);
    const id = made.answer.body.webhookendpoint.id as number;
    expect(made.answer.body.webhookendpoint).toMatchObject({
      url: 'http://127.0.0.1:9/made',
      allEvents: false,
      enabled: true,
    });
    expect(made.answer.body.webhookendpoint).not.toHaveProperty('token');
    const [stored] = await rows<{ token: string }>(`SELECT token FROM webhook_endpoints WHERE id = $1`, [id]);
    expect(stored!.token).not.toContain(TOKEN);

    const moved = await tripsOf(id, { url: 'http://127.0.0.1:9/moved', token: `${TOKEN}-2` });
    expect(moved.answer.status, moved.answer.text).toBe(200);
    expect(moved.trips).toBe(1);
    expect(moved.answer.body.webhookendpoint).toMatchObject({ url: 'http://127.0.0.1:9/moved' });
    const [resealed] = await rows<{ token: string }>(`SELECT token FROM webhook_endpoints WHERE id = $1`, [id]);
    expect(resealed!.token).not.toBe(stored!.token);
    expect(resealed!.token).not.toContain(TOKEN);
  });

  it('refuses a private or unresolvable destination with its 400 before any exchange, writing nothing', async () => {
    const id = await newEndpoint();
    const mark = await lastEventId(site.id);
    const count = async () =>
      (
        await rows<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_endpoints WHERE installation_id = $1`, [
          site.id,
        ])
      )[0]!.n;
    const before = await count();
    for (const [url, detail] of [
      ['http://10.0.0.1/hook', /private/],
      ['http://localhost:8080/hook', /local or private host/],
    ] as const) {
      const made = await withRoundTrips('/v2/webhookendpoints.json', {
        key: admin,
        method: 'POST',
        body: { webhookendpoint: { url, token: TOKEN } },
      });
      expect(made.answer.status, made.answer.text).toBe(400);
      expect(made.answer.body.errors).toEqual([
        { code: 'invalid', source: 'webhookendpoint.url', detail: expect.stringMatching(detail) },
      ]);
      expect(made.trips).toBe(0);
      const moved = await tripsOf(id, { url, enabled: false });
      expect(moved.answer.status, moved.answer.text).toBe(400);
      expect(moved.answer.body.errors).toEqual([
        { code: 'invalid', source: 'webhookendpoint.url', detail: expect.stringMatching(detail) },
      ]);
      expect(moved.trips).toBe(0);
    }
    expect(await count()).toBe(before);
    expect(await eventsSince(site.id, mark)).toEqual([]);
    expect(await rows(`SELECT url, enabled FROM webhook_endpoints WHERE id = $1`, [id])).toEqual([
      { url: 'http://127.0.0.1:9/hook', enabled: true },
    ]);
  });

  it("refuses another installation's inbox, and another installation's endpoint (404), in the same exchange, writing nothing", async () => {
    const id = await newEndpoint();
    const foreignInbox = (await api('/v2/inboxes.json', { key: other.users.admin.apiKey })).body.inboxes[0]
      .id as number;
    const theirs = await newEndpoint(other.users.admin.apiKey);
    const mark = await lastEventId(site.id);
    const refused = await tripsOf(id, { allInboxes: false, webhookendpointinboxes: [{ inbox: { id: foreignInbox } }] });
    expect(refused.answer.status, refused.answer.text).toBe(400);
    expect(refused.answer.body.errors).toEqual([
      {
        code: 'invalid',
        source: 'webhookendpoint.webhookendpointinboxes[0].inbox',
        detail: `no inboxes ${foreignInbox} here`,
      },
    ]);
    expect(refused.trips).toBe(1);
    const notOurs = await tripsOf(theirs, { enabled: false });
    expect(notOurs.answer.status).toBe(404);
    expect(notOurs.answer.body.errors).toEqual([
      { code: 'notFound', source: 'id', detail: `webhookendpoint ${theirs} not found` },
    ]);
    expect(notOurs.trips).toBe(1);
    expect(await eventsSince(site.id, mark)).toEqual([]);
    expect(await rows(`SELECT all_inboxes FROM webhook_endpoints WHERE id = $1`, [id])).toEqual([
      { all_inboxes: true },
    ]);
    expect(await rows(`SELECT enabled FROM webhook_endpoints WHERE id = $1`, [theirs])).toEqual([{ enabled: true }]);
  });
});

describe('a delivery sent again', () => {
  const redeliver = (endpoint: number, delivery: number) =>
    withRoundTrips(`/v2/webhookendpoints/${endpoint}/deliveries/${delivery}/redeliver.json`, {
      key: admin,
      method: 'POST',
    });
  const delivery = async (endpoint: number, status: string, due: string | null) => {
    const [row] = await rows<{ id: number }>(
      `INSERT INTO webhook_deliveries (installation_id, endpoint_id, event, delivery_id, payload, status, attempts, next_attempt_at)
       VALUES ($1, $2, 'ticket.created', $3, '{}', $4, 3, $5::timestamptz) RETURNING id`,
      [site.id, endpoint, crypto.randomUUID(), status, due],
    );
    return row!.id;
  };

  it("is queued afresh in one exchange; one being tried, unknown, or another endpoint's is refused in one, nothing changed", async () => {
    const endpoint = await newEndpoint();
    const failed = await delivery(endpoint, 'failed', null);
    const again = await redeliver(endpoint, failed);
    expect(again.answer.status, again.answer.text).toBe(202);
    expect(again.trips).toBe(1);
    expect(again.answer.body.webhookdelivery).toMatchObject({ id: failed, status: 'pending', attempts: 0 });

    const waiting = await delivery(endpoint, 'pending', new Date(Date.now() + 60_000).toISOString());
    const before = await rows(`SELECT status, attempts, next_attempt_at FROM webhook_deliveries WHERE id = $1`, [
      waiting,
    ]);
    const busy = await redeliver(endpoint, waiting);
    expect(busy.answer.status, busy.answer.text).toBe(409);
    expect(busy.answer.body.errors[0]).toMatchObject({ source: 'deliveryId' });
    expect(busy.trips).toBe(1);
    expect(
      await rows(`SELECT status, attempts, next_attempt_at FROM webhook_deliveries WHERE id = $1`, [waiting]),
    ).toEqual(before);

    const unknown = await redeliver(endpoint, 2_000_000_000);
    expect(unknown.answer.status).toBe(404);
    expect(unknown.answer.body.errors[0]).toMatchObject({ source: 'deliveryId' });
    const theirs = await newEndpoint(other.users.admin.apiKey);
    const foreign = await redeliver(theirs, failed);
    expect(foreign.answer.status).toBe(404);
    expect(foreign.answer.body.errors[0]).toMatchObject({ source: 'id' });
  });
});
