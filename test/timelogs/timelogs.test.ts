// Time logs: a teammate logs time on a ticket they see; an owner or admin for anyone; filtered by
// ticket, user, company and date; totals over any filter; another installation's logs are absent.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';

let site: SeededInstallation;
let other: SeededInstallation;
let owner: string;
let agent: string;
let ticket: number;
let secondTicket: number;
let company: number;

const log = (body: Record<string, unknown>, key = agent) =>
  api('/v2/timelogs.json', { method: 'POST', key, body: { timeLog: body } });

beforeAll(async () => {
  site = await newInstallation('timelogs');
  other = await newInstallation('timelogs-other');
  owner = site.users.owner.apiKey;
  agent = site.users.agent.apiKey;
  const inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id;
  const customer = (await api('/v2/customers.json', { method: 'POST', key: owner, body: { email: 'time@logs.test' } }))
    .body.customer.id;
  company = (
    await api('/v2/companies.json', {
      method: 'POST',
      key: owner,
      body: { company: { name: 'Logs Ltd', customers: [{ id: customer }] } },
    })
  ).body.company.id;
  const plain = (await api('/v2/customers.json', { method: 'POST', key: owner, body: { email: 'plain@logs.test' } }))
    .body.customer.id;
  ticket = (
    await api('/v2/tickets.json', {
      method: 'POST',
      key: owner,
      body: { subject: 'Timed', inbox, customer, message: 'hi' },
    })
  ).body.ticket.id;
  secondTicket = (
    await api('/v2/tickets.json', {
      method: 'POST',
      key: owner,
      body: { subject: 'Other', inbox, customer: plain, message: 'hi' },
    })
  ).body.ticket.id;
});

describe('time logs', () => {
  it("logs the caller's time by default, with the platform's wrapper and field types", async () => {
    const created = await log({
      ticket: { id: ticket },
      seconds: 1800,
      date: '2026-11-02T10:00:00Z',
      billable: true,
      description: 'Investigated',
      timelogs_id: null,
    });
    expect(created.status, created.text).toBe(201);
    const entry = created.body.timeLog;
    expect(entry).toMatchObject({
      ticket: { id: ticket, type: 'tickets' },
      user: { id: site.users.agent.id, type: 'users' },
      seconds: 1800,
      billable: true,
      description: 'Investigated',
      timezoneOffset: 0,
    });
    expect(entry.date).toBe('2026-11-02T10:00:00.000Z');
    const [row] = await rows('SELECT user_id, seconds, installation_id FROM time_logs WHERE id = $1', [entry.id]);
    expect(row).toEqual({ user_id: site.users.agent.id, seconds: 1800, installation_id: site.id });
    const listed = await api('/v2/timelogs.json', { key: agent });
    expect(listed.status).toBe(200);
    expect(listed.body.timeLogs.map((t: any) => t.id)).toContain(entry.id);
    expect(listed.body.meta.page.count).toBeGreaterThanOrEqual(1);
  });

  it('lets an owner log for another teammate, not an agent', async () => {
    expect(
      (
        await log(
          { ticket: { id: ticket }, seconds: 600, user: { id: site.users.agent.id }, date: '2026-11-03T09:00:00Z' },
          owner,
        )
      ).status,
    ).toBe(201);
    expectError(await log({ ticket: { id: ticket }, seconds: 600, user: { id: site.users.admin.id } }), 403);
    expectError(
      await log(
        { ticket: { id: ticket }, seconds: 600, user: { id: site.users.admin.id }, assignToCurrentUser: true },
        owner,
      ),
      400,
      'timeLog.user',
    );
  });

  it('refuses bad values and names them, writing nothing', async () => {
    const before = (await rows('SELECT count(*)::int AS n FROM time_logs'))[0]!.n;
    expectError(await log({ ticket: { id: ticket }, seconds: 0 }), 400, 'timeLog.seconds');
    expectError(await log({ ticket: { id: ticket }, seconds: '60' }), 400, 'timeLog.seconds');
    expectError(await log({ ticket: { id: ticket }, seconds: 8 * 24 * 3600 }), 400, 'timeLog.seconds');
    expectError(await log({ ticket: { id: ticket }, seconds: 60, date: 'yesterday' }), 400, 'timeLog.date');
    expectError(await log({ ticket: { id: ticket }, seconds: 60, date: '0000-01-01T00:00:00Z' }), 400, 'timeLog.date');
    expectError(await log({ seconds: 60 }), 400, 'timeLog.ticket');
    expectError(await log({ ticket: { id: ticket }, seconds: -60, minutes: 1 }), 400, 'timeLog.seconds');
    expectError(await log({ ticket: { id: 999999 }, seconds: 60 }), 400, 'timeLog.ticket');
    expect((await rows('SELECT count(*)::int AS n FROM time_logs'))[0]!.n).toBe(before);
  });

  it('keeps another installation out both ways', async () => {
    const theirs = await api('/v2/timelogs.json', {
      method: 'POST',
      key: other.users.owner.apiKey,
      body: { timeLog: { ticket: { id: ticket }, seconds: 60 } },
    });
    expectError(theirs, 400, 'timeLog.ticket');
    const listed = await api('/v2/timelogs.json', { key: other.users.owner.apiKey });
    expect(listed.body.timeLogs).toEqual([]);
    const mine = (await api('/v2/timelogs.json', { key: agent })).body.timeLogs[0].id;
    expect((await api(`/v2/timelogs/${mine}.json`, { key: other.users.owner.apiKey })).status).toBe(404);
    expect((await api(`/v2/timelogs/${mine}.json`, { method: 'DELETE', key: other.users.owner.apiKey })).status).toBe(
      404,
    );
  });

  it('filters by ticket, user, company and date, and sums per ticket, user and day', async () => {
    expect((await log({ ticket: { id: secondTicket }, seconds: 120, date: '2026-11-03T12:00:00Z' })).status).toBe(201);
    const filter = (f: unknown) => api('/v2/timelogs.json', { key: owner, query: { filter: JSON.stringify(f) } });
    expect((await filter({ ticket: ticket })).body.timeLogs).toHaveLength(2);
    expect((await filter({ 'companies.id': { $in: [company] } })).body.timeLogs.map((t: any) => t.ticket.id)).toEqual([
      ticket,
      ticket,
    ]);
    expect((await filter({ date: { $gte: '2026-11-03T00:00:00Z' } })).body.timeLogs.map((t: any) => t.seconds)).toEqual(
      [600, 120],
    );
    expect((await filter({ user: site.users.owner.id })).body.timeLogs).toEqual([]);
    expectError(await filter({ minutes: 3 }), 400, 'filter.minutes');

    const totals = await api('/v2/timelogs/totals.json', {
      key: owner,
      query: { filter: JSON.stringify({ 'companies.id': company }), groupBy: 'day' },
    });
    expect(totals.status, totals.text).toBe(200);
    expect(totals.body).toEqual({
      totals: { count: 2, seconds: 2400, billableSeconds: 1800 },
      groups: [
        { day: '2026-11-02', count: 1, seconds: 1800, billableSeconds: 1800 },
        { day: '2026-11-03', count: 1, seconds: 600, billableSeconds: 0 },
      ],
    });
    const perTicket = await api('/v2/timelogs/totals.json', { key: owner, query: { groupBy: 'ticket' } });
    expect(perTicket.body.groups).toEqual([
      { ticket: { id: ticket, type: 'tickets' }, count: 2, seconds: 2400, billableSeconds: 1800 },
      { ticket: { id: secondTicket, type: 'tickets' }, count: 1, seconds: 120, billableSeconds: 0 },
    ]);
    expectError(await api('/v2/timelogs/totals.json', { key: owner, query: { groupBy: 'month' } }), 400, 'groupBy');
    expect((await api('/v2/timelogs/totals.json', { key: other.users.owner.apiKey })).body.totals).toEqual({
      count: 0,
      seconds: 0,
      billableSeconds: 0,
    });
  });

  it('reads per ticket, in pages, and with includes=timelogs on the ticket', async () => {
    const page = await api(`/v2/tickets/${ticket}/timelogs.json`, { key: agent, query: { pageSize: 1 } });
    expect(page.status, page.text).toBe(200);
    expect(page.body.timeLogs).toHaveLength(1);
    expect(page.body.meta.page).toMatchObject({ count: 2, pages: 2 });
    const withLogs = await api(`/v2/tickets/${ticket}.json`, { key: agent, query: { includes: 'timelogs' } });
    expect(withLogs.body.ticket.timelogs).toHaveLength(2);
    expect(withLogs.body.included.timelogs.map((t: any) => t.seconds).sort()).toEqual([1800, 600]);
    expect((await api(`/v2/tickets/${ticket}/timelogs.json`, { key: other.users.owner.apiKey })).status).toBe(404);
  });

  it("lets a teammate change and delete their own log, an admin anyone's", async () => {
    const mine = (await log({ ticket: { id: ticket }, seconds: 60 })).body.timeLog.id;
    const byOwner = (await log({ ticket: { id: ticket }, seconds: 60 }, owner)).body.timeLog.id;
    const patched = await api(`/v2/timelogs/${mine}.json`, {
      method: 'PATCH',
      key: agent,
      body: { timeLog: { seconds: 90, billable: true } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.timeLog.seconds).toBe(90);
    expectError(
      await api(`/v2/timelogs/${byOwner}.json`, { method: 'PATCH', key: agent, body: { timeLog: { seconds: 90 } } }),
      403,
    );
    expectError(await api(`/v2/timelogs/${byOwner}.json`, { method: 'DELETE', key: agent }), 403);
    expect((await api(`/v2/timelogs/${mine}.json`, { method: 'DELETE', key: owner })).status).toBe(204);
    expect((await rows('SELECT state FROM time_logs WHERE id = $1', [mine]))[0]!.state).toBe('deleted');
  });
});

describe('bulk updates and deletes, held to the rules of single ones', () => {
  let shared: number;
  let hidden: number;
  const logsOf = (ticketId: number) =>
    rows(
      'SELECT id, ticket_id, user_id, seconds, billable, state, updated_at FROM time_logs WHERE ticket_id = $1 ORDER BY id',
      [ticketId],
    );
  const bulk = (key: string, filter: Record<string, unknown>, timeLog: Record<string, unknown>, dry = false) =>
    api('/v2/timelogs/update.json', {
      method: 'PATCH',
      key,
      body: { timeLog, filter_args: { filter, ...(dry ? { bulkDryExecute: true } : {}) } },
    });

  beforeAll(async () => {
    const inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id;
    const hiddenInbox = (
      await api('/v2/inboxes.json', {
        method: 'POST',
        key: owner,
        body: { inbox: { name: 'Payroll', email: 'payroll@timelogs.test' } },
      })
    ).body.inbox.id;
    shared = (
      await api('/v2/tickets.json', {
        method: 'POST',
        key: owner,
        body: { subject: 'Shared work', inbox, customer: { email: 'shared@logs.test' }, message: 'hi' },
      })
    ).body.ticket.id;
    hidden = (
      await api('/v2/tickets.json', {
        method: 'POST',
        key: owner,
        body: {
          subject: "Not the agent's",
          inbox: hiddenInbox,
          customer: { email: 'hidden@logs.test' },
          message: 'hi',
        },
      })
    ).body.ticket.id;
    expect((await api(`/v2/tickets/${hidden}.json`, { key: agent })).status).toBe(404);
    expect(
      (
        await log(
          { ticket: { id: shared }, seconds: 7200, billable: true, description: "the owner's billable work" },
          owner,
        )
      ).status,
    ).toBe(201);
    expect(
      (await log({ ticket: { id: shared }, seconds: 3600, billable: true, user: { id: site.users.admin.id } }, owner))
        .status,
    ).toBe(201);
    expect((await log({ ticket: { id: shared }, seconds: 60 })).status).toBe(201);
  });

  it("refuses an agent's bulk update moving colleagues' billable time onto a ticket they cannot see, changing no row", async () => {
    const before = await logsOf(shared);
    expect(before).toHaveLength(3);
    // the attack: every log of the ticket, colleagues' included, moved to a hidden ticket and made unbillable
    expectError(await bulk(agent, { ticket: shared }, { ticket: { id: hidden }, billable: false }), 403);
    expectError(await bulk(agent, { ticket: shared }, { ticket: { id: hidden }, billable: false }, true), 403);
    expectError(await bulk(agent, { ticket: shared }, { billable: false }), 403);
    // over the agent's own logs only: still not onto a hidden ticket, nor made another teammate's
    const mine = { ticket: shared, user: site.users.agent.id };
    expectError(await bulk(agent, mine, { ticket: { id: hidden } }), 400, 'timeLog.ticket');
    expectError(await bulk(agent, mine, { user: { id: site.users.owner.id } }), 403);
    expect(await logsOf(shared)).toEqual(before);
    expect(await logsOf(hidden)).toEqual([]);
  });

  it("lets a bulk update do what single updates may: an agent their own logs, an owner anyone's", async () => {
    const own = await bulk(agent, { ticket: shared, user: site.users.agent.id }, { seconds: 120 });
    expect(own.status, own.text).toBe(200);
    expect(own.body).toMatchObject({ affected: 1, dryRun: false });
    const all = await bulk(owner, { ticket: shared }, { billable: false });
    expect(all.status, all.text).toBe(200);
    expect(all.body.affected).toBe(3);
    expect((await logsOf(shared)).map((row) => [row.user_id, row.seconds, row.billable])).toEqual([
      [site.users.owner.id, 7200, false],
      [site.users.admin.id, 3600, false],
      [site.users.agent.id, 120, false],
    ]);
  });

  it("refuses an agent's bulk delete over colleagues' logs, deleting none", async () => {
    const before = await logsOf(shared);
    expectError(
      await api('/v2/timelogs/delete.json', {
        method: 'DELETE',
        key: agent,
        query: { filter: JSON.stringify({ ticket: shared }) },
      }),
      403,
    );
    expect(await logsOf(shared)).toEqual(before);
  });
});
