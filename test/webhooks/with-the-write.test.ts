// A write's webhook deliveries are written by the write itself, in the statement that closes its
// transaction (src/events/in-statement.ts; inside the same exchange as a batch), and sent once it
// commits; each is decided (its webhook events, its body) when first tried
// (src/resources/webhookendpoints/decide.ts). No drain of the installation's events, and no
// transaction after the write, stands between a change and its receivers. Deciding that fails
// never touches the write: the delivery waits, and is sent once it can be, once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { drained } from '../support/events';
import { awaitLogLines } from '../support/logs';
import { eventually } from '../support/room';
import { holdDrainLock } from '../events/support';
import { sendJobMessage } from '../support/queue';
import { receiver, TOKEN } from './receiver';

let site: SeededInstallation;
let admin: string;
let inbox: number;
let priorities: number[];
const hook = receiver();

/** A new ticket whose own events are all drained, so what follows is the change's alone. */
async function quietTicket(): Promise<number> {
  const made = await api('/v2/tickets.json', {
    method: 'POST',
    key: admin,
    body: {
      ticket: {
        subject: 'With the write',
        inbox,
        customer: { email: 'write@webhooks.test' },
        message: 'Hello',
        priority: { id: priorities[0] },
      },
    },
  });
  expect(made.status, made.text).toBe(201);
  await drained(site.id);
  return made.body.ticket.id as number;
}

const setPriority = (ticket: number, priority: number) =>
  api(`/v2/tickets/${ticket}.json`, { method: 'PATCH', key: admin, body: { ticket: { priority: { id: priority } } } });

/** The ticket's `updated` events: whether dispatched, and whether the fan-out handled it, and its deliveries. */
const changeOf = async (ticket: number, installation = site) =>
  rows<{ dispatched: boolean; fanned: boolean | null; deliveries: number }>(
    `SELECT e.dispatched_at IS NOT NULL AS dispatched,
            (SELECT d.handled_at IS NOT NULL FROM event_deliveries d WHERE d.event_id = e.id AND d.subscriber = 'webhooks.fanout') AS fanned,
            (SELECT count(*)::int FROM webhook_deliveries w WHERE w.event_id = e.id) AS deliveries
       FROM events e WHERE e.installation_id = $1 AND e.record_type = 'tickets' AND e.record_id = $2 AND e.kind = 'updated' ORDER BY e.id`,
    [installation.id, ticket],
  );

const prioritiesOf = (ticket: number) =>
  hook.requests.filter((r) => r.json.event === 'ticket.priority' && r.json.ticket?.id === ticket);

beforeAll(async () => {
  site = await newInstallation('webhooks-write');
  admin = site.users.admin.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
  priorities = (await api('/v2/ticketpriorities.json', { key: admin })).body.ticketpriorities.map(
    (p: { id: number }) => p.id,
  );
  const made = await api('/v2/webhookendpoints.json', {
    method: 'POST',
    key: admin,
    body: { webhookendpoint: { url: await hook.url, token: TOKEN } },
  });
  expect(made.status, made.text).toBe(201);
});

afterAll(async () => {
  await hook.close();
});

describe("a write's webhook deliveries", () => {
  it('are made by the write itself and reach the receiver while the drain is held; the drain then sends nothing again', async () => {
    const ticket = await quietTicket();
    const release = await holdDrainLock(site.id);
    try {
      const changed = await setPriority(ticket, priorities[1]!);
      expect(changed.status, changed.text).toBe(200);
      // made with the write, while the drain is held: the event handed to the fan-out there
      await eventually(async () => ((await changeOf(ticket))[0]?.fanned ? true : undefined));
      expect(await changeOf(ticket)).toEqual([{ dispatched: false, fanned: true, deliveries: 1 }]);
      const [delivery] = await eventually(async () => (prioritiesOf(ticket).length ? prioritiesOf(ticket) : undefined));
      expect(delivery!.json.ticket.priority.id).toBe(priorities[1]);
    } finally {
      await release();
    }
    await drained(site.id);
    expect(await changeOf(ticket)).toEqual([{ dispatched: true, fanned: true, deliveries: 1 }]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(prioritiesOf(ticket)).toHaveLength(1);
  });

  it('cost their message three exchanges, its outcome and the next delivery written in one after the POST; a change of two events sends the second right behind the first', async () => {
    const ticket = await quietTicket();
    const changed = await api(`/v2/tickets/${ticket}.json`, {
      method: 'PATCH',
      key: admin,
      body: { ticket: { priority: { id: priorities[2] }, agent: { id: site.users.admin.id } } },
    });
    expect(changed.status, changed.text).toBe(200);
    const made = await eventually(async () => {
      const found = await rows<{ id: number; event: string; turn: number | null; status: string }>(
        `SELECT id, event, turn, status FROM webhook_deliveries
          WHERE event_id = (SELECT max(id) FROM events WHERE installation_id = $1 AND record_type = 'tickets' AND record_id = $2 AND kind = 'updated')
          ORDER BY id`,
        [site.id, ticket],
      );
      return found.length === 2 && found.every((d) => d.status === 'delivered') ? found : undefined;
    });
    const [first, second] = made;
    // one event, two webhook events: the second a delivery of its own, right behind the first
    expect(made.map((d) => d.event).sort()).toEqual(['ticket.assigned', 'ticket.priority']);
    expect(second!.turn).toBe(first!.id);
    const got = hook.requests.filter((r) => r.json.ticket?.id === ticket && r.json.event !== 'ticket.created');
    expect(got.map((r) => r.json.event)).toEqual([first!.event, second!.event]);
    expect(got.every((r) => r.json.ticket.priority.id === priorities[2])).toBe(true);
    // the write's message: its read with the ticket read beside it (two statements, one exchange),
    // the decisions and holds, then the outcome, which queued the one behind: four statements
    // (another outbox's row may have the same id: the line is looked for by its outbox too)
    const mine = { message: 'outbox: message done', outbox: 'webhook_deliveries' };
    const [message] = await awaitLogLines({ ...mine, ids: String(first!.id) });
    expect(message).toMatchObject({ found: 1, tried: 1, queued: 1, dbRoundTrips: 4 });
    // decided already: its read, its hold, its outcome
    const [behind] = await awaitLogLines({ ...mine, ids: String(second!.id) });
    expect(behind).toMatchObject({ found: 1, tried: 1, queued: 0, dbRoundTrips: 3 });
  });

  it('are not looked for in an installation without an endpoint, and go to an endpoint from the first change after it is made', async () => {
    const bare = await newInstallation('webhooks-write-none');
    const key = bare.users.admin.apiKey;
    const bareInbox = (await api('/v2/inboxes.json', { key })).body.inboxes[0].id;
    const levels = (await api('/v2/ticketpriorities.json', { key })).body.ticketpriorities.map(
      (p: { id: number }) => p.id,
    );
    const made = await api('/v2/tickets.json', {
      method: 'POST',
      key,
      body: {
        ticket: {
          subject: 'No endpoint yet',
          inbox: bareInbox,
          customer: { email: 'none@webhooks.test' },
          message: 'Hello',
          priority: { id: levels[0] },
        },
      },
    });
    expect(made.status, made.text).toBe(201);
    const ticket = made.body.ticket.id as number;
    await drained(bare.id);
    const late = receiver();
    const release = await holdDrainLock(bare.id);
    try {
      const first = await api(`/v2/tickets/${ticket}.json`, {
        method: 'PATCH',
        key,
        body: { ticket: { priority: { id: levels[1] } } },
      });
      expect(first.status, first.text).toBe(200);
      // no endpoint: the write left the event to the drain, which is held
      expect(await changeOf(ticket, bare)).toEqual([{ dispatched: false, fanned: null, deliveries: 0 }]);
      const hooked = await api('/v2/webhookendpoints.json', {
        method: 'POST',
        key,
        body: { webhookendpoint: { url: await late.url, token: TOKEN } },
      });
      expect(hooked.status, hooked.text).toBe(201);
      const second = await api(`/v2/tickets/${ticket}.json`, {
        method: 'PATCH',
        key,
        body: { ticket: { priority: { id: levels[0] } } },
      });
      expect(second.status, second.text).toBe(200);
      // the second write made its delivery before it answered, the drain still held
      expect(await changeOf(ticket, bare)).toEqual([
        { dispatched: false, fanned: null, deliveries: 0 },
        { dispatched: false, fanned: true, deliveries: 1 },
      ]);
      const delivered = await eventually(async () => (late.requests.length === 1 ? late.requests : undefined));
      expect(delivered.map((request) => [request.json.event, request.json.ticket.priority.id])).toEqual([
        ['ticket.priority', levels[0]],
      ]);
    } finally {
      await release();
    }
    // the change made before the endpoint is the drain's: handled, and sent nowhere
    await drained(bare.id);
    expect(await changeOf(ticket, bare)).toEqual([
      { dispatched: true, fanned: true, deliveries: 0 },
      { dispatched: true, fanned: true, deliveries: 1 },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(late.requests).toHaveLength(1);
    await late.close();
  });

  it('of an event no write handled (a statement on its own wrote it) are made by the drain, once', async () => {
    const ticket = await quietTicket();
    const [own] = await rows<{ id: string }>(
      `INSERT INTO events (installation_id, record_type, record_id, kind, data) VALUES ($1, 'tickets', $2, 'updated', $3) RETURNING id`,
      [site.id, ticket, JSON.stringify({ priority: { before: { id: priorities[0] }, after: { id: priorities[1] } } })],
    );
    expect(await rows(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = $1`, [own!.id])).toEqual([
      { n: 0 },
    ]);
    await sendJobMessage({ kind: 'events.drain', installationId: site.id });
    await drained(site.id, 20_000);
    const [delivery] = await eventually(
      async () => (prioritiesOf(ticket).length ? prioritiesOf(ticket) : undefined),
      20_000,
    );
    expect(delivery!.json.ticket.id).toBe(ticket);
    expect(await rows(`SELECT event FROM webhook_deliveries WHERE event_id = $1`, [own!.id])).toEqual([
      { event: 'ticket.priority' },
    ]);
  });

  it('after a batch, leave to the drain an earlier event the drain has tried or given up on', async () => {
    const ticket = await quietTicket();
    const release = await holdDrainLock(site.id);
    try {
      // an earlier event of the ticket that the fan-out gave up on (its tries spent)
      const [given] = await rows<{ id: string }>(
        `INSERT INTO events (installation_id, record_type, record_id, kind, data) VALUES ($1, 'tickets', $2, 'updated', '{"priority": {"before": null, "after": null}}') RETURNING id`,
        [site.id, ticket],
      );
      await rows(
        `INSERT INTO event_deliveries (event_id, subscriber, attempts, gave_up_at) VALUES ($1, 'webhooks.fanout', 5, now())`,
        [given!.id],
      );
      const changed = await setPriority(ticket, priorities[1]!);
      expect(changed.status, changed.text).toBe(200);
      // the write's own event is fanned out while the drain is held; the one given up on is not taken again
      await eventually(async () => ((await changeOf(ticket)).at(-1)?.fanned ? true : undefined));
      expect(await rows(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = $1`, [given!.id])).toEqual([
        { n: 0 },
      ]);
      expect(await rows(`SELECT handled_at FROM event_deliveries WHERE event_id = $1`, [given!.id])).toEqual([
        { handled_at: null },
      ]);
    } finally {
      await release();
    }
  });

  it('of writes side by side are each made by its own write, each delivered once', async () => {
    const tickets: number[] = [];
    for (let i = 0; i < 12; i++) tickets.push(await quietTicket());
    const release = await holdDrainLock(site.id);
    try {
      const answers = await Promise.all(tickets.map((ticket) => setPriority(ticket, priorities[1]!)));
      for (const answer of answers) expect(answer.status, answer.text).toBe(200);
      // the drain is held: every change's delivery was written by its write, before it answered
      for (const ticket of tickets)
        expect(await changeOf(ticket)).toEqual([{ dispatched: false, fanned: true, deliveries: 1 }]);
      await eventually(
        async () => (tickets.every((ticket) => prioritiesOf(ticket).length >= 1) ? true : undefined),
        20_000,
      );
    } finally {
      await release();
    }
    await drained(site.id);
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const ticket of tickets) expect(prioritiesOf(ticket)).toHaveLength(1);
  });

  it('of a change that is several webhook events reach the receiver one each, in order, before the next change', async () => {
    const ticket = await quietTicket();
    const statuses = (await api('/v2/ticketstatuses.json', { key: admin })).body.ticketstatuses.map(
      (s: { id: number }) => s.id,
    );
    const both = await api(`/v2/tickets/${ticket}.json`, {
      method: 'PATCH',
      key: admin,
      body: { ticket: { priority: { id: priorities[1] }, status: { id: statuses[1] } } },
    });
    expect(both.status, both.text).toBe(200);
    const next = await setPriority(ticket, priorities[0]!);
    expect(next.status, next.text).toBe(200);
    const ofTicket = () =>
      hook.requests.filter((r) => r.json.ticket?.id === ticket && r.json.event !== 'ticket.created');
    const got = await eventually(async () => (ofTicket().length >= 3 ? ofTicket() : undefined), 20_000);
    expect(got.map((r) => r.json.event)).toEqual(['ticket.status', 'ticket.priority', 'ticket.priority']);
    expect(got.map((r) => r.json.ticket.priority.id).at(-1)).toBe(priorities[0]);
    // the first change's second event is a delivery of its own, in the first one's turn
    const made = await rows<{ event: string; behind_first: boolean }>(
      `SELECT d.event, d.turn IS NOT NULL AS behind_first FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
        WHERE e.installation_id = $1 AND e.record_type = 'tickets' AND e.record_id = $2 AND e.kind = 'updated' ORDER BY e.id, d.id`,
      [site.id, ticket],
    );
    expect(made).toEqual([
      { event: 'ticket.status', behind_first: false },
      { event: 'ticket.priority', behind_first: true },
      { event: 'ticket.priority', behind_first: false },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ofTicket()).toHaveLength(3);
  });

  it('are decided when first tried: one whose deciding fails waits, out of the log, without touching the write, and is sent once it can be, once', async () => {
    const ticket = await quietTicket();
    // deciding this ticket's deliveries fails, until undone
    const name = `test_webhooks_${Math.random().toString(36).slice(2, 10)}`;
    await rows(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.ticket_id = ${ticket} AND OLD.event = '' THEN RAISE EXCEPTION 'test: deciding deliveries of this ticket fails'; END IF;
        RETURN NEW;
      END $$`);
    await rows(`CREATE TRIGGER ${name} BEFORE UPDATE ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION ${name}()`);
    const [endpointId] = (await api('/v2/webhookendpoints.json', { key: admin })).body.webhookendpoints.map(
      (e: { id: number }) => e.id,
    );
    try {
      const changed = await setPriority(ticket, priorities[1]!);
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body.ticket.priority.id).toBe(priorities[1]);
      expect(await changeOf(ticket)).toEqual([{ dispatched: false, fanned: true, deliveries: 1 }]);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(prioritiesOf(ticket)).toHaveLength(0);
      const log = await api(`/v2/webhookendpoints/${endpointId}/deliveries.json`, {
        key: admin,
        query: { pageSize: '100', orderBy: 'id', orderMode: 'desc' },
      });
      expect(log.status, log.text).toBe(200);
      expect(log.body.webhookdeliveries.length).toBeGreaterThan(0);
      // the ticket's creation is there; its change, not decided, is not
      expect(
        log.body.webhookdeliveries
          .filter((d: { ticket: { id: number } | null }) => d.ticket?.id === ticket)
          .map((d: { event: string }) => d.event),
      ).toEqual(['ticket.created']);
    } finally {
      await rows(`DROP TRIGGER IF EXISTS ${name} ON webhook_deliveries`);
      await rows(`DROP FUNCTION IF EXISTS ${name}()`);
    }
    // the queue's next try of the message decides and sends it
    const [delivery] = await eventually(
      async () => (prioritiesOf(ticket).length ? prioritiesOf(ticket) : undefined),
      30_000,
    );
    expect(delivery!.json.ticket.priority.id).toBe(priorities[1]);
    await drained(site.id, 20_000);
    expect(await changeOf(ticket)).toEqual([{ dispatched: true, fanned: true, deliveries: 1 }]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(prioritiesOf(ticket)).toHaveLength(1);
  });
});
