// Outbound webhooks with real HTTP receivers started here: endpoints and their refusals, signed
// deliveries of whole objects, retries until a failing receiver recovers (one delivery id
// throughout), order per ticket, filters by event and inbox, redelivery, the delivery log, and
// an endpoint switched off after a day of failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { drained, eventsSince, lastEventId } from '../support/events';
import { sendJobMessage } from '../support/queue';
import { eventually } from '../support/room';
import { SDK_INCLUDED } from '../support/sdk';
import { receiver, sign, TOKEN } from './receiver';

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
let inbox: number;
let secondInbox: number;
const receivers: ReturnType<typeof receiver>[] = [];

const endpoint = async (url: string, extra: Record<string, unknown> = {}, key = admin) => {
  const made = await api('/v2/webhookendpoints.json', {
    method: 'POST',
    key,
    body: { webhookendpoint: { url, token: TOKEN, ...extra } },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.webhookendpoint as { id: number };
};
const listen = (statuses?: (number | 'hang')[]) => {
  const made = receiver(statuses);
  receivers.push(made);
  return made;
};
const newTicket = async (extra: Record<string, unknown> = {}) => {
  const made = await api('/v2/tickets.json', {
    method: 'POST',
    key: admin,
    body: {
      ticket: { subject: 'Hooked', inbox, customer: { email: 'hooked@webhooks.test' }, message: 'Hello', ...extra },
    },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.ticket.id as number;
};
const deliveries = async (id: number) =>
  (await api(`/v2/webhookendpoints/${id}/deliveries.json`, { key: admin, query: { pageSize: '100' } })).body
    .webhookdeliveries as any[];

beforeAll(async () => {
  site = await newInstallation('webhooks');
  other = await newInstallation('webhooks-other');
  admin = site.users.admin.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
  secondInbox = (
    await api('/v2/inboxes.json', {
      method: 'POST',
      key: admin,
      body: { inbox: { name: 'Second', email: 'second@webhooks.test' } },
    })
  ).body.inbox.id;
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

describe('endpoints', () => {
  it('are made as the platform has them, the token sealed and never answered', async () => {
    const hook = listen();
    const made = await api('/v2/webhookendpoints.json', {
      method: 'POST',
      key: admin,
      query: { includes: 'all' },
      body: {
        webhookendpoint: { url: await hook.url, token: TOKEN, allEvents: false, allInboxes: false },
        included: {
          ...SDK_INCLUDED,
          webhookendpointevents: [{ id: 0, code: 'ticket.created' }],
          webhookendpointinboxes: [{ id: 0, inbox: { id: inbox, type: '' } }],
        },
      },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.webhookendpoint).toMatchObject({
      url: await hook.url,
      allEvents: false,
      allInboxes: false,
      enabled: true,
      contentType: 'application/json',
      disabledAt: null,
    });
    expect(made.text).not.toContain(TOKEN);
    expect(made.body.included.webhookendpointevents.map((e: { code: string }) => e.code)).toEqual(['ticket.created']);
    const [stored] = await rows<{ token: string }>('SELECT token FROM webhook_endpoints WHERE id = $1', [
      made.body.webhookendpoint.id,
    ]);
    expect(stored!.token).not.toContain(TOKEN);
    expect((await api(`/v2/webhookendpoints/${made.body.webhookendpoint.id}.json`, { key: admin })).text).not.toContain(
      TOKEN,
    );
    expect(
      (await api(`/v2/webhookendpoints/${made.body.webhookendpoint.id}.json`, { method: 'DELETE', key: admin })).status,
    ).toBe(204);
  });

  it('refuse private and non-https addresses, short tokens, unknown events and foreign inboxes, writing nothing', async () => {
    const foreignInbox = (await api('/v2/inboxes.json', { key: other.users.admin.apiKey })).body.inboxes[0].id;
    const mark = await lastEventId(site.id);
    const refused = async (body: Record<string, unknown>, source: string, detail?: RegExp) =>
      expectError(
        await api('/v2/webhookendpoints.json', {
          method: 'POST',
          key: admin,
          body: { webhookendpoint: { url: 'http://127.0.0.1:9/hook', token: TOKEN, ...body } },
        }),
        400,
        source,
        detail,
      );
    await refused({ url: 'http://10.0.0.1/hook' }, 'webhookendpoint.url', /private/);
    await refused({ url: 'http://169.254.169.254/latest/meta-data' }, 'webhookendpoint.url', /link-local/);
    await refused({ url: 'http://[::1]:8080/hook' }, 'webhookendpoint.url', /loopback/);
    await refused({ url: 'http://0x7f.0.0.2/hook' }, 'webhookendpoint.url', /127\.0\.0\.2/);
    await refused({ url: 'http://localhost:8080/hook' }, 'webhookendpoint.url', /local or private host/);
    await refused({ url: 'ftp://127.0.0.1/hook' }, 'webhookendpoint.url', /https/);
    await refused({ url: 'not a url' }, 'webhookendpoint.url', /absolute URL/);
    await refused({ token: 'short' }, 'webhookendpoint.token');
    await refused({ token: undefined }, 'webhookendpoint.token');
    await refused({ contentType: 'text/xml' }, 'webhookendpoint.contentType');
    await refused(
      { webhookendpointevents: [{ code: 'ticket.exploded' }] },
      'webhookendpoint.webhookendpointevents[0].code',
    );
    await refused(
      { webhookendpointinboxes: [{ inbox: { id: foreignInbox } }] },
      'webhookendpoint.webhookendpointinboxes[0].inbox',
    );
    expect(await eventsSince(site.id, mark)).toEqual([]);
    expect(
      await rows("SELECT count(*)::int AS n FROM webhook_endpoints WHERE installation_id = $1 AND state = 'active'", [
        site.id,
      ]),
    ).toEqual([{ n: 0 }]);
    expect((await api('/v2/webhookendpoints.json', { key: site.users.agent.apiKey })).status).toBe(403);
    expect(
      (
        await api('/v2/webhookendpoints.json', {
          method: 'POST',
          key: site.users.agent.apiKey,
          body: { webhookendpoint: { url: 'http://127.0.0.1:9/hook', token: TOKEN } },
        })
      ).status,
    ).toBe(403);
  });
});

describe('deliveries', () => {
  it('carry the event with whole objects, signed with the token over the body and over timestamp.delivery.body', async () => {
    const hook = listen();
    const hooked = await endpoint(await hook.url);
    // another installation's endpoint hears nothing of this one's tickets
    const theirs = listen();
    await endpoint(await theirs.url, {}, other.users.admin.apiKey);
    const ticket = await newTicket();
    const created = await eventually(async () =>
      hook.requests.find((r) => r.json.event === 'ticket.created' && r.json.ticket?.id === ticket),
    );
    const { headers, body, json } = created;
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-desk-event']).toBe('ticket.created');
    expect(headers['x-desk-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    expect(headers['x-desk-signature']).toBe(sign(body));
    expect(headers['x-desk-timestamp-signature']).toBe(
      sign(`${headers['x-desk-timestamp']}.${headers['x-desk-delivery']}.${body}`),
    );
    expect(Math.abs(Number(headers['x-desk-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(json.ticket).toMatchObject({
      id: ticket,
      subject: 'Hooked',
      customer: { type: 'customers', email: 'hooked@webhooks.test' },
      status: { id: 1, type: 'ticketstatuses', name: 'Active' },
    });
    expect(json.eventCreatorId).toBe(site.users.admin.id);
    // the first message is part of the creation; a reply is its own event, with the message
    expect(
      (await api(`/v2/tickets/${ticket}/messages.json`, { method: 'POST', key: admin, body: { message: 'An answer' } }))
        .status,
    ).toBe(201);
    const replied = await eventually(async () => hook.requests.find((r) => r.json.event === 'ticket.agent.reply'));
    expect(replied.json.message).toMatchObject({ type: 'messages', textBody: 'An answer' });
    const log = await eventually(async () => {
      const listed = await deliveries(hooked.id);
      return listed.some((d) => d.event === 'ticket.created' && d.status === 'delivered') ? listed : undefined;
    });
    const entry = log.find((d) => d.event === 'ticket.created')!;
    expect(entry).toMatchObject({
      attempts: 1,
      statusCode: 200,
      deliveryId: headers['x-desk-delivery'],
      ticket: { id: ticket, type: 'tickets' },
      nextAttemptAt: null,
    });
    expect(Number.isInteger(entry.latencyMs)).toBe(true);
    await drained(other.id);
    expect(theirs.requests).toEqual([]);
  });

  it('are tried again until a failing receiver recovers, with the same delivery id, and redelivered on request', async () => {
    const hook = listen([500, 503, 502, 200]);
    const hooked = await endpoint(await hook.url, {
      allEvents: false,
      webhookendpointevents: [{ code: 'ticket.created' }],
    });
    const ticket = await newTicket();
    await eventually(async () => (hook.requests.length >= 4 ? true : undefined), 30_000);
    expect(hook.requests.map((r) => r.answered)).toEqual([500, 503, 502, 200]);
    expect(new Set(hook.requests.map((r) => r.headers['x-desk-delivery'])).size).toBe(1);
    expect(hook.requests.every((r) => r.json.ticket.id === ticket)).toBe(true);
    const [entry] = await eventually(async () => {
      const listed = await deliveries(hooked.id);
      return listed[0]?.status === 'delivered' ? listed : undefined;
    });
    expect(entry).toMatchObject({ attempts: 4, statusCode: 200, status: 'delivered' });
    const again = await api(`/v2/webhookendpoints/${hooked.id}/deliveries/${entry.id}/redeliver.json`, {
      method: 'POST',
      key: admin,
    });
    expect(again.status, again.text).toBe(202);
    await eventually(async () => (hook.requests.length >= 5 ? true : undefined));
    expect(hook.requests[4]!.headers['x-desk-delivery']).toBe(hook.requests[0]!.headers['x-desk-delivery']);
    expect(hook.requests[4]!.body).toBe(hook.requests[0]!.body);
    expect(
      (await api(`/v2/webhookendpoints/${hooked.id}/deliveries/999999/redeliver.json`, { method: 'POST', key: admin }))
        .status,
    ).toBe(404);
    expect(
      (await api(`/v2/webhookendpoints/${hooked.id}/deliveries.json`, { key: other.users.admin.apiKey })).status,
    ).toBe(404);
  });

  it("reach an endpoint in each ticket's order, a failure holding back that ticket's later events", async () => {
    const hook = listen([500, 200]);
    await endpoint(await hook.url, {
      allEvents: false,
      webhookendpointevents: [{ code: 'ticket.created' }, { code: 'ticket.status' }, { code: 'ticket.priority' }],
    });
    const ticket = await newTicket();
    expect(
      (
        await api(`/v2/tickets/${ticket}.json`, {
          method: 'PATCH',
          key: admin,
          body: { ticket: { status: { id: 3 } } },
        })
      ).status,
    ).toBe(200);
    const priority = (await api('/v2/ticketpriorities.json', { key: admin })).body.ticketpriorities[0].id;
    expect(
      (
        await api(`/v2/tickets/${ticket}.json`, {
          method: 'PATCH',
          key: admin,
          body: { ticket: { priority: { id: priority } } },
        })
      ).status,
    ).toBe(200);
    await eventually(
      async () => (hook.requests.filter((r) => r.answered === 200).length >= 3 ? true : undefined),
      20_000,
    );
    expect(hook.requests.map((r) => `${r.json.event}:${r.answered}`)).toEqual([
      'ticket.created:500',
      'ticket.created:200',
      'ticket.status:200',
      'ticket.priority:200',
    ]);
  });

  it('go only to endpoints that want the event and the inbox', async () => {
    const onlyStatus = listen();
    await endpoint(await onlyStatus.url, { allEvents: false, webhookendpointevents: [{ code: 'ticket.status' }] });
    const onlySecond = listen();
    await endpoint(await onlySecond.url, {
      allInboxes: false,
      webhookendpointinboxes: [{ inbox: { id: secondInbox } }],
    });
    const everything = listen();
    await endpoint(await everything.url);
    const first = await newTicket();
    const second = await newTicket({ inbox: secondInbox });
    await eventually(async () =>
      everything.requests.filter((r) => r.json.event === 'ticket.created').length >= 2 ? true : undefined,
    );
    await drained(site.id);
    expect(onlyStatus.requests).toEqual([]);
    expect(onlySecond.requests.map((r) => r.json.ticket.id)).toEqual([second]);
    expect(everything.requests.map((r) => r.json.ticket?.id)).toEqual(expect.arrayContaining([first, second]));
    // a customer's change is its own event, carrying the customer
    const customer = (await api(`/v2/tickets/${first}.json`, { key: admin })).body.ticket.customer.id;
    expect(
      (
        await api(`/v2/customers/${customer}.json`, {
          method: 'PATCH',
          key: admin,
          body: { customer: { jobTitle: 'Buyer' } },
        })
      ).status,
    ).toBe(200);
    const edited = await eventually(async () => everything.requests.find((r) => r.json.event === 'customer.edited'));
    expect(edited.json.customer).toMatchObject({ id: customer, jobTitle: 'Buyer' });
  });

  it('of one event reach every endpoint once, in one message, which delivered twice (or naming ids not there) sends nothing again', async () => {
    const hooks = [listen(), listen(), listen()];
    const ours: number[] = [];
    for (const hook of hooks)
      ours.push(
        (await endpoint(await hook.url, { allEvents: false, webhookendpointevents: [{ code: 'ticket.created' }] })).id,
      );
    const ticket = await newTicket();
    await eventually(async () => (hooks.every((hook) => hook.requests.length === 1) ? true : undefined));
    // a try is recorded once the receiver has answered, so the rows catch up just after the requests
    const made = await eventually(async () => {
      const found = await rows<{ id: number; status: string; attempts: number }>(
        "SELECT id, status, attempts FROM webhook_deliveries WHERE ticket_id = $1 AND event = 'ticket.created' AND endpoint_id = ANY($2) ORDER BY id",
        [ticket, ours],
      );
      return found.length === 3 && found.every((d) => d.status !== 'pending') ? found : undefined;
    });
    expect(made.map((d) => [d.status, d.attempts])).toEqual([
      ['delivered', 1],
      ['delivered', 1],
      ['delivered', 1],
    ]);
    // the message again, twice, and one naming what is not a delivery of anyone's
    const message = { kind: 'webhooks.deliver', deliveryIds: made.map((d) => d.id), queuedAt: 0 };
    await sendJobMessage(message);
    await sendJobMessage(message);
    await sendJobMessage({ kind: 'webhooks.deliver', deliveryIds: ['x', -1, 2 ** 40, 99_999_999], queuedAt: 0 });
    // a later ticket's deliveries come after those messages were read: nothing more for the first
    const later = await newTicket();
    await eventually(async () => (hooks.every((hook) => hook.requests.length === 2) ? true : undefined));
    expect(hooks.map((hook) => hook.requests.map((r) => r.json.ticket.id))).toEqual([
      [ticket, later],
      [ticket, later],
      [ticket, later],
    ]);
    expect(
      (
        await rows<{ attempts: number }>('SELECT attempts FROM webhook_deliveries WHERE id = ANY($1)', [
          made.map((d) => d.id),
        ])
      ).map((d) => d.attempts),
    ).toEqual([1, 1, 1]);
  });

  it("decide a write's delivery from its own event: the message's read-ahead naming another installation's ticket is not believed", async () => {
    const hook = listen();
    const ours = (await endpoint(await hook.url)).id;
    const ticket = await newTicket();
    const otherInbox = (await api('/v2/inboxes.json', { key: other.users.admin.apiKey })).body.inboxes[0].id;
    const foreign = await api('/v2/tickets.json', {
      method: 'POST',
      key: other.users.admin.apiKey,
      body: {
        ticket: {
          subject: 'Not yours',
          inbox: otherInbox,
          customer: { email: 'foreign@webhooks.test' },
          message: 'Secret',
        },
      },
    });
    expect(foreign.status, foreign.text).toBe(201);
    // a write's change, and its delivery not decided yet, as the write leaves them (the drain has nothing to do for it)
    const [event] = await rows<{ id: string }>(
      `INSERT INTO events (installation_id, record_type, record_id, kind, data, dispatched_at) VALUES ($1, 'tickets', $2, 'updated', '{"priority": {"before": null, "after": null}}', now()) RETURNING id`,
      [site.id, ticket],
    );
    const [delivery] = await rows<{ id: number }>(
      `INSERT INTO webhook_deliveries (installation_id, endpoint_id, event_id, event, delivery_id, ticket_id, payload, next_attempt_at) VALUES ($1, $2, $3, '', $4, $5, '', now()) RETURNING id`,
      [site.id, ours, event!.id, `read-ahead-${ticket}`, ticket],
    );
    const forged = {
      eventId: Number(event!.id),
      installationId: other.id,
      recordType: 'tickets',
      recordId: foreign.body.ticket.id,
      ticketId: foreign.body.ticket.id,
    };
    await sendJobMessage({
      kind: 'webhooks.deliver',
      deliveryIds: [delivery!.id],
      queuedAt: Date.now(),
      records: [null, { eventId: 'x' }, forged],
    });
    const got = await eventually(async () =>
      hook.requests.find((r) => r.headers['x-desk-delivery'] === `read-ahead-${ticket}`),
    );
    expect(got.json.event).toBe('ticket.priority');
    expect(got.json.ticket.id).toBe(ticket);
    expect(got.body).not.toContain('Not yours');
    expect(hook.requests.filter((r) => r.json.ticket?.id === foreign.body.ticket.id)).toEqual([]);
  });

  it('send the delivery waiting behind one the endpoint turns out not to want at once: the one dropped, the one behind it posted', async () => {
    const hook = listen();
    const wantsPriority = (
      await endpoint(await hook.url, { allEvents: false, webhookendpointevents: [{ code: 'ticket.priority' }] })
    ).id;
    const ticket = await newTicket();
    // two changes of the ticket, their deliveries not decided yet, as writes leave them: a subject (not wanted), then a priority
    const change = async (data: unknown) =>
      (
        await rows<{ id: string }>(
          `INSERT INTO events (installation_id, record_type, record_id, kind, data, dispatched_at) VALUES ($1, 'tickets', $2, 'updated', $3, now()) RETURNING id`,
          [site.id, ticket, JSON.stringify(data)],
        )
      )[0]!.id;
    const made: number[] = [];
    for (const [n, data] of [
      [1, { subject: { before: 'Hooked', after: 'Renamed' } }],
      [2, { priority: { before: null, after: null } }],
    ] as const) {
      made.push(
        (
          await rows<{ id: number }>(
            `INSERT INTO webhook_deliveries (installation_id, endpoint_id, event_id, event, delivery_id, ticket_id, payload, next_attempt_at) VALUES ($1, $2, $3, '', $4, $5, '', now()) RETURNING id`,
            [site.id, wantsPriority, await change(data), `behind-${ticket}-${n}`, ticket],
          )
        )[0]!.id,
      );
    }
    // one message names both: the first is taken (and dropped), the second waits behind it
    const sent = Date.now();
    await sendJobMessage({ kind: 'webhooks.deliver', deliveryIds: made, queuedAt: sent });
    const got = await eventually(
      async () => hook.requests.find((r) => r.headers['x-desk-delivery'] === `behind-${ticket}-2`),
      20_000,
    );
    expect(got.json.event).toBe('ticket.priority');
    // not left for the sweep (a minute and more)
    expect(Date.now() - sent).toBeLessThan(15_000);
    expect(hook.requests.filter((r) => r.headers['x-desk-delivery'] === `behind-${ticket}-1`)).toEqual([]);
    // the receiver may have its POST before the consumer has recorded it
    const recorded = await eventually(async () => {
      const found = await rows<{ id: number; status: string }>(
        'SELECT id, status FROM webhook_deliveries WHERE id = ANY($1) ORDER BY id',
        [made],
      );
      return found.length === 1 && found[0]!.status !== 'pending' ? found : undefined;
    }, 10_000);
    expect(recorded).toEqual([{ id: made[1], status: 'delivered' }]);
  });

  it('give up on a receiver that does not answer in 10 s, and switch off an endpoint failing for a day, with an event', async () => {
    const silent = listen(['hang']);
    const hooked = await endpoint(await silent.url, {
      allEvents: false,
      webhookendpointevents: [{ code: 'ticket.created' }],
    });
    await rows("UPDATE webhook_endpoints SET failing_since = now() - interval '25 hours' WHERE id = $1", [hooked.id]);
    const mark = await lastEventId(site.id);
    await newTicket();
    const [entry] = await eventually(async () => {
      const listed = await deliveries(hooked.id);
      return listed[0]?.attempts >= 1 ? listed : undefined;
    }, 30_000);
    expect(entry).toMatchObject({ statusCode: null, lastError: 'no answer in 10 s' });
    // the switch-off is its own transaction, just after the try is recorded
    const read = await eventually(async () => {
      const endpointNow = (await api(`/v2/webhookendpoints/${hooked.id}.json`, { key: admin })).body.webhookendpoint;
      return endpointNow.enabled === false ? endpointNow : undefined;
    });
    expect(read.enabled).toBe(false);
    expect(read.disabledAt).not.toBeNull();
    const switched = (await eventsSince(site.id, mark)).filter(
      (e) => e.recordType === 'webhookendpoints' && e.recordId === hooked.id,
    );
    expect(switched).toEqual([
      expect.objectContaining({
        kind: 'updated',
        actorSystem: 'webhooks',
        data: expect.objectContaining({ enabled: { before: true, after: false } }),
      }),
    ]);
    // switched off, it is sent nothing more; switched on, it starts afresh
    const before = silent.requests.length;
    await newTicket();
    await drained(site.id);
    expect(silent.requests.length).toBe(before);
    expect(
      (
        await api(`/v2/webhookendpoints/${hooked.id}.json`, {
          method: 'PATCH',
          key: admin,
          body: { webhookendpoint: { enabled: true } },
        })
      ).body.webhookendpoint,
    ).toMatchObject({ enabled: true, disabledAt: null });
  }, 60_000);
});
