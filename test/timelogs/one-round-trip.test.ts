// A time log's create and update are one exchange with the database (one HTTP batch, no WebSocket
// connection): who may log for whom, whose log it is and the ticket the caller sees are checked in
// that exchange, a failed check answering the same 4xx and writing nothing; a refusal the Worker
// decides alone (another teammate named by an agent) makes none (docs/connection-strategy.md,
// "Writes in one round trip").
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { withRoundTrips } from '../support/round-trips';

let site: SeededInstallation;
let other: SeededInstallation;
let owner: string;
let agent: string;
let ticket: number;
let hidden: number;

beforeAll(async () => {
  site = await newInstallation('timelog-trips');
  other = await newInstallation('timelog-trips-other');
  owner = site.users.owner.apiKey;
  agent = site.users.agent.apiKey;
  const inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id;
  const hiddenInbox = (
    await api('/v2/inboxes.json', {
      method: 'POST',
      key: owner,
      body: { inbox: { name: 'Payroll', email: 'payroll@timelog-trips.test' } },
    })
  ).body.inbox.id;
  ticket = (
    await api('/v2/tickets.json', {
      method: 'POST',
      key: owner,
      body: { subject: 'Timed', inbox, customer: { email: 'time@trips.test' }, message: 'hi' },
    })
  ).body.ticket.id;
  hidden = (
    await api('/v2/tickets.json', {
      method: 'POST',
      key: owner,
      body: { subject: "Not the agent's", inbox: hiddenInbox, customer: { email: 'hidden@trips.test' }, message: 'hi' },
    })
  ).body.ticket.id;
  expect((await api(`/v2/tickets/${hidden}.json`, { key: agent })).status).toBe(404);
  // each credential is looked up once, then remembered: the writes below are the write alone
  await api('/v2/timelogs.json', { key: agent });
  await api('/v2/timelogs.json', { key: other.users.owner.apiKey });
});

const create = (timeLog: Record<string, unknown>, key = agent) =>
  withRoundTrips('/v2/timelogs.json', { method: 'POST', key, body: { timeLog } });
const update = (id: number, timeLog: Record<string, unknown>, key = agent) =>
  withRoundTrips(`/v2/timelogs/${id}.json`, { method: 'PATCH', key, body: { timeLog } });
const logsOn = (ticketId: number) =>
  rows('SELECT id, user_id, seconds, billable, ticket_id FROM time_logs WHERE ticket_id = $1 ORDER BY id', [ticketId]);

describe('a time log in one round trip', () => {
  it("creates the caller's log and updates it in one exchange each, with their events", async () => {
    const made = await create({ ticket: { id: ticket }, seconds: 1800, billable: true, description: 'Investigated' });
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(1);
    const id = made.answer.body.timeLog.id as number;
    expect(made.answer.body.timeLog).toMatchObject({
      ticket: { id: ticket, type: 'tickets' },
      user: { id: site.users.agent.id, type: 'users' },
      seconds: 1800,
    });

    const changed = await update(id, { seconds: 900, billable: false });
    expect(changed.answer.status, changed.answer.text).toBe(200);
    expect(changed.trips).toBe(1);
    expect(changed.answer.body.timeLog).toMatchObject({ id, seconds: 900, billable: false });
    const events = await rows<{ kind: string; data: Record<string, unknown> | null }>(
      `SELECT kind, data FROM events WHERE record_type = 'timelogs' AND record_id = $1 ORDER BY id`,
      [id],
    );
    expect(events.map((event) => event.kind)).toEqual(['created', 'updated']);
    expect(events[1]!.data).toMatchObject({
      seconds: { before: 1800, after: 900 },
      billable: { before: true, after: false },
    });

    // an owner logs for a teammate, and changes anyone's log: one exchange each
    const forAgent = await create({ ticket: { id: ticket }, seconds: 60, user: { id: site.users.agent.id } }, owner);
    expect(forAgent.answer.status, forAgent.answer.text).toBe(201);
    expect(forAgent.trips).toBe(1);
    const byOwner = await update(id, { seconds: 120 }, owner);
    expect(byOwner.answer.status, byOwner.answer.text).toBe(200);
    expect(byOwner.trips).toBe(1);
  });

  it("refuses another teammate's log, another teammate named, a ticket the agent does not see and another installation's log, writing nothing", async () => {
    const ownersLog = (await create({ ticket: { id: ticket }, seconds: 300 }, owner)).answer.body.timeLog.id as number;
    const mine = (await create({ ticket: { id: ticket }, seconds: 60 })).answer.body.timeLog.id as number;
    const before = await logsOn(ticket);

    const notMine = await update(ownersLog, { seconds: 1 });
    expect(notMine.answer.status).toBe(403);
    expect(notMine.answer.body.errors).toEqual([
      { code: 'forbidden', detail: "only an owner or admin changes another teammate's time log" },
    ]);
    expect(notMine.trips).toBe(1);

    // decided in the Worker: no exchange at all
    for (const refused of [
      await create({ ticket: { id: ticket }, seconds: 60, user: { id: site.users.owner.id } }),
      await update(mine, { user: { id: site.users.owner.id } }),
    ]) {
      expect(refused.answer.status).toBe(403);
      expect(refused.answer.body.errors).toEqual([
        { code: 'forbidden', detail: 'only an owner or admin logs time for another teammate' },
      ]);
      expect(refused.trips).toBe(0);
    }
    const both = await create(
      { ticket: { id: ticket }, seconds: 60, user: { id: site.users.admin.id }, assignToCurrentUser: true },
      owner,
    );
    expect(both.answer.status).toBe(400);
    expect(both.answer.body.errors).toEqual([
      { code: 'invalid', source: 'timeLog.user', detail: 'name the user or assignToCurrentUser, not both' },
    ]);

    // a ticket of the installation the agent does not see: as absent as another installation's
    for (const refused of [
      await create({ ticket: { id: hidden }, seconds: 60 }),
      await update(mine, { ticket: { id: hidden } }),
    ]) {
      expect(refused.answer.status).toBe(400);
      expect(refused.answer.body.errors).toEqual([
        { code: 'invalid', source: 'timeLog.ticket', detail: `no tickets ${hidden} here` },
      ]);
      expect(refused.trips).toBe(1);
    }

    const stranger = await update(mine, { seconds: 1 }, other.users.owner.apiKey);
    expect(stranger.answer.status).toBe(404);
    expect(stranger.answer.body.errors).toEqual([
      { code: 'notFound', source: 'id', detail: `timeLog ${mine} not found` },
    ]);
    expect(stranger.trips).toBe(1);

    expect(await logsOn(ticket)).toEqual(before);
    expect(await logsOn(hidden)).toEqual([]);
  });
});

describe('a bulk update of time logs in one round trip', () => {
  it("changes the agent's own selected logs in one exchange; a selection holding a colleague's log, or a ticket the agent does not see, changes none in one", async () => {
    const mine = (await create({ ticket: { id: ticket }, seconds: 300, description: 'bulk-mine' })).answer.body.timeLog
      .id as number;
    const theirs = (
      await create({ ticket: { id: ticket }, seconds: 400, billable: false, description: 'bulk-theirs' }, owner)
    ).answer.body.timeLog.id as number;
    const bulk = (filter: Record<string, unknown>, timeLog: Record<string, unknown>) =>
      withRoundTrips('/v2/timelogs/update.json', {
        method: 'PATCH',
        key: agent,
        body: { timeLog, filter_args: { filter } },
      });
    const changed = await bulk({ id: { $in: [mine] } }, { billable: false });
    expect(changed.answer.status, changed.answer.text).toBe(200);
    expect(changed.answer.body.ids).toEqual([mine]);
    expect(changed.trips).toBe(1);
    const colleague = await bulk({ id: { $in: [mine, theirs] } }, { seconds: 1 });
    expect(colleague.answer.status).toBe(403);
    expect(colleague.trips).toBe(1);
    const unseen = await bulk({ id: { $in: [mine] } }, { ticket: { id: hidden } });
    expect(unseen.answer.status).toBe(400);
    expect(unseen.answer.body.errors[0]).toMatchObject({ source: 'timeLog.ticket' });
    expect(unseen.trips).toBe(1);
    expect(
      await rows('SELECT id, seconds, billable, ticket_id FROM time_logs WHERE id = ANY($1) ORDER BY id', [
        [mine, theirs],
      ]),
    ).toEqual([
      { id: mine, seconds: 300, billable: false, ticket_id: ticket },
      { id: theirs, seconds: 400, billable: false, ticket_id: ticket },
    ]);
  });
});

describe('a time log deleted in one round trip', () => {
  it("deletes the agent's own log in one exchange; a colleague's is a 403 in one, and stays", async () => {
    const mine = (await create({ ticket: { id: ticket }, seconds: 30, description: 'to delete' })).answer.body.timeLog
      .id as number;
    const theirs = (await create({ ticket: { id: ticket }, seconds: 40, description: 'not yours' }, owner)).answer.body
      .timeLog.id as number;
    const remove = (id: number) => withRoundTrips(`/v2/timelogs/${id}.json`, { method: 'DELETE', key: agent });
    const refused = await remove(theirs);
    expect(refused.answer.status).toBe(403);
    expect(refused.trips).toBe(1);
    const gone = await remove(mine);
    expect(gone.answer.status, gone.answer.text).toBe(204);
    expect(gone.trips).toBe(1);
    expect(await rows('SELECT id, state FROM time_logs WHERE id = ANY($1) ORDER BY id', [[mine, theirs]])).toEqual([
      { id: mine, state: 'deleted' },
      { id: theirs, state: 'active' },
    ]);
  });
});

describe('time logs deleted in bulk in one round trip', () => {
  it("deletes the agent's own selected logs in one exchange; a selection holding a colleague's log is a 403 in one, and deletes none", async () => {
    const mine = [
      (await create({ ticket: { id: ticket }, seconds: 10, description: 'bulk gone 1' })).answer.body.timeLog
        .id as number,
      (await create({ ticket: { id: ticket }, seconds: 20, description: 'bulk gone 2' })).answer.body.timeLog
        .id as number,
    ];
    const theirs = (await create({ ticket: { id: ticket }, seconds: 50, description: 'bulk not yours' }, owner)).answer
      .body.timeLog.id as number;
    const remove = (ids: number[], key = agent) =>
      withRoundTrips('/v2/timelogs/delete.json', {
        method: 'DELETE',
        key,
        query: { filter: JSON.stringify({ id: { $in: ids } }) },
      });
    const refused = await remove([...mine, theirs]);
    expect(refused.answer.status, refused.answer.text).toBe(403);
    expect(refused.trips).toBe(1);
    expect(
      await rows(`SELECT count(*)::int AS n FROM time_logs WHERE id = ANY($1) AND state = 'active'`, [
        [...mine, theirs],
      ]),
    ).toEqual([{ n: 3 }]);
    const gone = await remove(mine);
    expect(gone.answer.status, gone.answer.text).toBe(200);
    expect(gone.answer.body).toEqual({ affected: 2, ids: mine, jobId: null, dryRun: false });
    expect(gone.trips).toBe(1);
    // another installation's owner selects nothing of these
    const foreign = await remove([theirs], other.users.owner.apiKey);
    expect(foreign.answer.body).toMatchObject({ affected: 0, ids: [] });
    expect(await rows('SELECT id, state FROM time_logs WHERE id = ANY($1) ORDER BY id', [[...mine, theirs]])).toEqual([
      { id: mine[0], state: 'deleted' },
      { id: mine[1], state: 'deleted' },
      { id: theirs, state: 'active' },
    ]);
    expect(
      (
        await rows<{ kind: string }>(
          `SELECT kind FROM events WHERE record_type = 'timelogs' AND record_id = ANY($1) AND kind = 'deleted'`,
          [mine],
        )
      ).length,
    ).toBe(2);
  });
});
