// The platform's own names in `orderBy` and `filter`: its sample "Get all timelogs (filtered by
// company)" sends `orderBy=tickets_id&orderMode=DESC` with a filter over `companies.id` (ids as
// strings) and `date`, byte for byte below; its ticket list's documented `orderBy` names include
// the relation names of the ticket's own columns (`statuses.id`, `inboxes.id`, ...). A misspelt
// name stays a 400 naming the allowed ones.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation } from '../support/db';
import { expectError } from '../support/errors';

let site: SeededInstallation;
let owner: string;
let company: number;
const ticket: Record<string, number> = {};
const logOf: Record<string, number> = {};

beforeAll(async () => {
  site = await newInstallation('timelog-names');
  owner = site.users.owner.apiKey;
  const inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id;
  const customer = (await api('/v2/customers.json', { method: 'POST', key: owner, body: { email: 'names@logs.test' } }))
    .body.customer.id;
  company = (
    await api('/v2/companies.json', {
      method: 'POST',
      key: owner,
      body: { company: { name: 'Names Ltd', customers: [{ id: customer }] } },
    })
  ).body.company.id;
  const outsider = (
    await api('/v2/customers.json', { method: 'POST', key: owner, body: { email: 'outsider@logs.test' } })
  ).body.customer.id;
  for (const [name, who, status] of [
    ['first', customer, 1],
    ['second', customer, 5],
    ['outside', outsider, 1],
  ] as const) {
    const made = await api('/v2/tickets.json', {
      method: 'POST',
      key: owner,
      body: { subject: name, inbox, customer: who, message: 'hi', status: { id: status } },
    });
    expect(made.status, made.text).toBe(201);
    ticket[name] = made.body.ticket.id;
  }
  for (const [name, on, date] of [
    ['firstLog', 'first', '2025-03-01T10:00:00Z'],
    ['secondLog', 'second', '2025-04-01T10:00:00Z'],
    ['outsideLog', 'outside', '2025-05-01T10:00:00Z'],
    ['lateLog', 'first', '2026-03-01T10:00:00Z'],
  ] as const) {
    const made = await api('/v2/timelogs.json', {
      method: 'POST',
      key: owner,
      body: { timeLog: { ticket: { id: ticket[on] }, seconds: 600, date } },
    });
    expect(made.status, made.text).toBe(201);
    logOf[name] = made.body.timeLog.id;
  }
});

describe("a time log list by the platform's names", () => {
  it("takes the sample's request as it is: the company's logs in the year, by ticket, last ticket first", async () => {
    const companyId = company;
    const answer = await api(
      `/desk/api/v2/timelogs.json?pageSize=100&page=1&orderBy=tickets_id&orderMode=DESC&filter={\"$and\":[{\"companies.id\":{\"$in\":[\"${companyId}\"]}},{\"date\":{\"$gte\":\"2025-02-01T00:00:00.000Z\"}},{\"date\":{\"$lte\":\"2026-01-31T23:59:59.999Z\"}}]}`,
      { key: owner },
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.timeLogs.map((log: { id: number }) => log.id)).toEqual([logOf.secondLog, logOf.firstLog]);
    expect(answer.body.timeLogs.map((log: { ticket: { id: number } }) => log.ticket.id)).toEqual([
      ticket.second,
      ticket.first,
    ]);
  });

  it('orders by tickets_id either way, as by the ticket', async () => {
    const ascending = await api('/v2/timelogs.json', {
      key: owner,
      query: { orderBy: 'tickets_id', orderMode: 'asc' },
    });
    expect(ascending.body.timeLogs.map((log: { ticket: { id: number } }) => log.ticket.id)).toEqual([
      ticket.first,
      ticket.first,
      ticket.second,
      ticket.outside,
    ]);
  });

  it('filters by tickets_id as by ticket', async () => {
    const byName = await api('/v2/timelogs.json', {
      key: owner,
      query: { filter: { tickets_id: { $in: [ticket.second, ticket.outside] } }, orderBy: 'date' },
    });
    expect(byName.status, byName.text).toBe(200);
    expect(byName.body.timeLogs.map((log: { id: number }) => log.id)).toEqual([logOf.secondLog, logOf.outsideLog]);
    const byOurs = await api('/v2/timelogs.json', {
      key: owner,
      query: { filter: { ticket: { $in: [ticket.second, ticket.outside] } }, orderBy: 'date' },
    });
    expect(byOurs.body).toEqual(byName.body);
  });

  it('refuses a misspelt name, naming the allowed ones', async () => {
    const refused = expectError(
      await api('/v2/timelogs.json?orderBy=ticket_id&orderMode=DESC', { key: owner }),
      400,
      'orderBy',
    );
    expect(refused.detail).toContain('tickets_id');
    expect(refused.detail).toContain('ticket_id');
    expectError(
      await api('/v2/timelogs.json', { key: owner, query: { filter: { tickets_ids: { $eq: 1 } } } }),
      400,
      'filter.tickets_ids',
    );
  });

  it('filters `date` as a time: text search over it is a 400, a malformed time a 400, never a 500', async () => {
    expect(
      expectError(
        await api('/v2/timelogs.json', { key: owner, query: { filter: { date: { $contains: '2026' } } } }),
        400,
        'filter.date',
      ).detail,
    ).toContain('$contains');
    expectError(
      await api('/v2/timelogs/totals.json', { key: owner, query: { filter: { date: { $contains: '2026' } } } }),
      400,
      'filter.date',
    );
    expectError(
      await api('/v2/timelogs.json', { key: owner, query: { filter: { date: { $gte: 'yesterday' } } } }),
      400,
      'filter.date',
    );
    const since = await api('/v2/timelogs.json', { key: owner, query: { filter: { date: { $gte: '2000-01-01' } } } });
    expect(since.status, since.text).toBe(200);
    expect(since.body.timeLogs.length).toBeGreaterThan(0);
  });
});

describe("a ticket list by the platform's relation names", () => {
  it("orders by statuses.id, the ticket's own status", async () => {
    const answer = await api('/v2/tickets.json', { key: owner, query: { orderBy: 'statuses.id', orderMode: 'DESC' } });
    expect(answer.status, answer.text).toBe(200);
    const listed = answer.body.tickets.map((t: { id: number; status: { id: number } }) => [t.id, t.status.id]);
    expect(listed[0]).toEqual([ticket.second, 5]);
    expect(listed.map(([, status]: number[]) => status)).toEqual([5, 1, 1]);
  });

  it('still refuses a name over many related records (tags.id: which tag?)', async () => {
    expectError(await api('/v2/tickets.json', { key: owner, query: { orderBy: 'tags.id' } }), 400, 'orderBy');
  });
});
