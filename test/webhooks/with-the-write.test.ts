// A write's webhook deliveries are made with the write (src/events/in-transaction.ts): in its own
// transaction, last thing before it commits, or for a write sent as one batch right after it
// commits, once its answer is sent (`Database.afterBatches`); then they are sent. No drain of the
// installation's events stands between a change and its receivers. A fan-out that fails there
// never fails the write; the drain then makes the deliveries, once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { drained } from '../support/events';
import { awaitLogLines } from '../support/logs';
import { eventually } from '../support/room';
import { holdDrainLock } from '../events/support';
import { receiver, TOKEN } from './receiver';

let site: SeededInstallation;
let admin: string;
let inbox: number;
let priorities: number[];
const hook = receiver();

/** A new ticket whose own events are all drained, so what follows is the change's alone. */
async function quietTicket(): Promise<number> {
  const made = await api('/v2/tickets.json', { method: 'POST', key: admin, body: { ticket: { subject: 'With the write', inbox, customer: { email: 'write@webhooks.test' }, message: 'Hello', priority: { id: priorities[0] } } } });
  expect(made.status, made.text).toBe(201);
  await drained(site.id);
  return made.body.ticket.id as number;
}

const setPriority = (ticket: number, priority: number) => api(`/v2/tickets/${ticket}.json`, { method: 'PATCH', key: admin, body: { ticket: { priority: { id: priority } } } });

/** The ticket's `updated` events: whether dispatched, and whether the fan-out handled it, and its deliveries. */
const changeOf = async (ticket: number, installation = site) =>
  rows<{ dispatched: boolean; fanned: boolean | null; deliveries: number }>(
    `SELECT e.dispatched_at IS NOT NULL AS dispatched,
            (SELECT d.handled_at IS NOT NULL FROM event_deliveries d WHERE d.event_id = e.id AND d.subscriber = 'webhooks.fanout') AS fanned,
            (SELECT count(*)::int FROM webhook_deliveries w WHERE w.event_id = e.id) AS deliveries
       FROM events e WHERE e.installation_id = $1 AND e.record_type = 'tickets' AND e.record_id = $2 AND e.kind = 'updated' ORDER BY e.id`,
    [installation.id, ticket],
  );

const prioritiesOf = (ticket: number) => hook.requests.filter((r) => r.json.event === 'ticket.priority' && r.json.ticket?.id === ticket);

beforeAll(async () => {
  site = await newInstallation('webhooks-write');
  admin = site.users.admin.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
  priorities = (await api('/v2/ticketpriorities.json', { key: admin })).body.ticketpriorities.map((p: { id: number }) => p.id);
  const made = await api('/v2/webhookendpoints.json', { method: 'POST', key: admin, body: { webhookendpoint: { url: await hook.url, token: TOKEN } } });
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

  it('are not looked for in an installation without an endpoint, and are from the first write after one is made', async () => {
    const bare = await newInstallation('webhooks-write-none');
    const key = bare.users.admin.apiKey;
    const bareInbox = (await api('/v2/inboxes.json', { key })).body.inboxes[0].id;
    const levels = (await api('/v2/ticketpriorities.json', { key })).body.ticketpriorities.map((p: { id: number }) => p.id);
    const made = await api('/v2/tickets.json', { method: 'POST', key, body: { ticket: { subject: 'No endpoint yet', inbox: bareInbox, customer: { email: 'none@webhooks.test' }, message: 'Hello', priority: { id: levels[0] } } } });
    expect(made.status, made.text).toBe(201);
    const ticket = made.body.ticket.id as number;
    await drained(bare.id);
    const late = receiver();
    const release = await holdDrainLock(bare.id);
    try {
      const first = await api(`/v2/tickets/${ticket}.json`, { method: 'PATCH', key, body: { ticket: { priority: { id: levels[1] } } } });
      expect(first.status, first.text).toBe(200);
      // no endpoint: the write left the event to the drain, which is held
      expect(await changeOf(ticket, bare)).toEqual([{ dispatched: false, fanned: null, deliveries: 0 }]);
      const hooked = await api('/v2/webhookendpoints.json', { method: 'POST', key, body: { webhookendpoint: { url: await late.url, token: TOKEN } } });
      expect(hooked.status, hooked.text).toBe(201);
      const second = await api(`/v2/tickets/${ticket}.json`, { method: 'PATCH', key, body: { ticket: { priority: { id: levels[0] } } } });
      expect(second.status, second.text).toBe(200);
      // the write after it fans out the change before it too, still waiting for the held drain, in order:
      // the endpoint wants it now, so it is sent as well
      await eventually(async () => ((await changeOf(ticket, bare))[1]?.fanned ? true : undefined));
      expect(await changeOf(ticket, bare)).toEqual([
        { dispatched: false, fanned: true, deliveries: 1 },
        { dispatched: false, fanned: true, deliveries: 1 },
      ]);
      const delivered = await eventually(async () => (late.requests.length === 2 ? late.requests : undefined));
      // each carries the ticket as it is when fanned out
      expect(delivered.map((request) => [request.json.event, request.json.ticket.priority.id])).toEqual([
        ['ticket.priority', levels[0]],
        ['ticket.priority', levels[0]],
      ]);
    } finally {
      await release();
    }
    await drained(bare.id);
    expect((await changeOf(ticket, bare)).map((change) => change.fanned)).toEqual([true, true]);
    await eventually(async () => (late.requests.length === 2 ? true : undefined));
    await late.close();
  });

  it("after a batch, leave to the drain an earlier event the drain has tried or given up on", async () => {
    const ticket = await quietTicket();
    const release = await holdDrainLock(site.id);
    try {
      // an earlier event of the ticket that the fan-out gave up on (its tries spent)
      const [given] = await rows<{ id: string }>(
        `INSERT INTO events (installation_id, record_type, record_id, kind, data) VALUES ($1, 'tickets', $2, 'updated', '{"priority": {"before": null, "after": null}}') RETURNING id`,
        [site.id, ticket],
      );
      await rows(`INSERT INTO event_deliveries (event_id, subscriber, attempts, gave_up_at) VALUES ($1, 'webhooks.fanout', 5, now())`, [given!.id]);
      const changed = await setPriority(ticket, priorities[1]!);
      expect(changed.status, changed.text).toBe(200);
      // the write's own event is fanned out while the drain is held; the one given up on is not taken again
      await eventually(async () => ((await changeOf(ticket)).at(-1)?.fanned ? true : undefined));
      expect(await rows(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = $1`, [given!.id])).toEqual([{ n: 0 }]);
      expect(await rows(`SELECT handled_at FROM event_deliveries WHERE event_id = $1`, [given!.id])).toEqual([{ handled_at: null }]);
    } finally {
      await release();
    }
  });

  it('after batches written at once take their turns: every change fanned out by a run after a write, each delivered once', async () => {
    const tickets: number[] = [];
    for (let i = 0; i < 12; i++) tickets.push(await quietTicket());
    const release = await holdDrainLock(site.id);
    try {
      // twelve writes side by side: each run after a batch waits for the one before it, then finds done what that one did
      const answers = await Promise.all(tickets.map((ticket) => setPriority(ticket, priorities[1]!)));
      for (const answer of answers) expect(answer.status, answer.text).toBe(200);
      // the drain is held: every change was fanned out after its write, none left to the drain
      for (const ticket of tickets) {
        await eventually(async () => ((await changeOf(ticket))[0]?.fanned ? true : undefined), 20_000);
        expect(await changeOf(ticket)).toEqual([{ dispatched: false, fanned: true, deliveries: 1 }]);
      }
      await eventually(async () => (tickets.every((ticket) => prioritiesOf(ticket).length >= 1) ? true : undefined), 20_000);
    } finally {
      await release();
    }
    await drained(site.id);
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const ticket of tickets) expect(prioritiesOf(ticket)).toHaveLength(1);
  });

  it('never fail the write: a fan-out failing there leaves the event to the drain, which sends it once it can', async () => {
    const ticket = await quietTicket();
    // every delivery row of this ticket fails to be written, until undone
    const name = `test_webhooks_${Math.random().toString(36).slice(2, 10)}`;
    await rows(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.ticket_id = ${ticket} THEN RAISE EXCEPTION 'test: deliveries of this ticket fail'; END IF;
        RETURN NEW;
      END $$`);
    await rows(`CREATE TRIGGER ${name} BEFORE INSERT ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION ${name}()`);
    try {
      const requestId = `fanout-${Math.random().toString(36).slice(2)}`;
      const changed = await api(`/v2/tickets/${ticket}.json`, { method: 'PATCH', key: admin, headers: { 'x-request-id': requestId }, body: { ticket: { priority: { id: priorities[1] } } } });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body.ticket.priority.id).toBe(priorities[1]);
      const [change] = await changeOf(ticket);
      expect(change!.deliveries).toBe(0);
      expect(change!.fanned).not.toBe(true);
      // the warning the failed fan-out logged names the request it happened in, as the request's own line does
      const lines = await awaitLogLines({ requestId }, 2);
      expect(lines.map((line) => line.message).sort()).toEqual(['events: a subscriber failed in the writing transaction; the drain will hand it the event', 'request']);
      expect(lines.find((line) => line.level === 'warn')).toMatchObject({ subscriber: 'webhooks.fanout', error: { code: 'P0001' } });
    } finally {
      await rows(`DROP TRIGGER IF EXISTS ${name} ON webhook_deliveries`);
      await rows(`DROP FUNCTION IF EXISTS ${name}()`);
    }
    // the drain's next try (its first failed while the trigger stood, or it has not run yet) makes it
    const [delivery] = await eventually(async () => (prioritiesOf(ticket).length ? prioritiesOf(ticket) : undefined), 20_000);
    expect(delivery!.json.ticket.priority.id).toBe(priorities[1]);
    await drained(site.id, 20_000);
    expect(await changeOf(ticket)).toEqual([{ dispatched: true, fanned: true, deliveries: 1 }]);
    expect(prioritiesOf(ticket)).toHaveLength(1);
  });
});
