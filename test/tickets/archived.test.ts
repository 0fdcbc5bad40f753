// `archived` as the platform means it: a ticket solved or closed and not interacted with for 120
// days. Its samples send `GET /desk/api/v2/tickets.json?archived=false&includes=messages&pageSize=50&page=1`
// ("true if you want to filter by archived tickets only") and
// `GET /desk/api/v2/search/tickets.json?pageSize=100&archived=false`.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';

let site: SeededInstallation;
let owner: string;
const t: Record<string, number> = {};

const ids = (response: { body: any }) =>
  response.body.tickets.map((ticket: { id: number }) => ticket.id).sort((a: number, b: number) => a - b);
const mine = (found: number[]) => found.filter((id) => Object.values(t).includes(id));

/** Moves a ticket's last touch (its change and its last thread entry) `days` into the past. */
const untouchedFor = (id: number, days: number) =>
  rows(
    `UPDATE tickets SET updated_at = now() - make_interval(days => $2), last_message_at = now() - make_interval(days => $2) WHERE id = $1`,
    [id, days],
  );

beforeAll(async () => {
  site = await newInstallation('archived');
  owner = site.users.owner.apiKey;
  const inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id;
  const create = async (name: string, status: number) => {
    const created = await api('/v2/tickets.json', {
      method: 'POST',
      key: owner,
      body: {
        subject: `Archive ${name}`,
        inbox: { id: inbox },
        customer: { email: `${name}@archive.test` },
        message: 'hello',
        status: { id: status },
      },
    });
    expect(created.status, created.text).toBe(201);
    t[name] = created.body.ticket.id;
  };
  // the platform's default status ids: 1 active, 5 solved, 6 closed
  await create('oldSolved', 5);
  await create('oldClosed', 6);
  await create('recentSolved', 5);
  await create('oldOpen', 1);
  await create('justPast', 6);
  await untouchedFor(t.oldSolved!, 200);
  await untouchedFor(t.oldClosed!, 121);
  await untouchedFor(t.recentSolved!, 30);
  await untouchedFor(t.oldOpen!, 400);
  await untouchedFor(t.justPast!, 119);
});

describe('GET /v2/tickets.json?archived=', () => {
  it('true: only solved or closed tickets untouched for 120 days', async () => {
    const listed = await api('/desk/api/v2/tickets.json?archived=true&includes=messages&pageSize=50&page=1', {
      key: owner,
    });
    expect(listed.status, listed.text).toBe(200);
    expect(ids(listed)).toEqual([t.oldSolved, t.oldClosed]);
    expect(listed.body.included.messages.length).toBeGreaterThan(0);
  });

  it("false (the sample's default): every other ticket", async () => {
    const listed = await api('/desk/api/v2/tickets.json?archived=false&includes=messages&pageSize=50&page=1', {
      key: owner,
    });
    expect(listed.status, listed.text).toBe(200);
    expect(mine(ids(listed))).toEqual([t.recentSolved, t.oldOpen, t.justPast]);
    expect(listed.body.pagination.records).toBe(3);
  });

  it('absent: both; combined with a filter like any list parameter', async () => {
    expect(mine(ids(await api('/v2/tickets.json?pageSize=50', { key: owner })))).toHaveLength(5);
    const closed = await api('/v2/tickets.json', {
      key: owner,
      query: { archived: 'true', filter: { status: { $eq: 6 } } },
    });
    expect(ids(closed)).toEqual([t.oldClosed]);
  });

  it('a reply brings an archived ticket back among the others', async () => {
    const other = await api('/v2/tickets.json', {
      method: 'POST',
      key: owner,
      body: {
        subject: 'Archive revived',
        inbox: (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id,
        customer: { email: 'revived@archive.test' },
        message: 'hi',
        status: { id: 5 },
      },
    });
    const id = other.body.ticket.id;
    await untouchedFor(id, 150);
    expect(
      ids(await api('/v2/tickets.json', { key: owner, query: { archived: 'true', filter: { id: { $eq: id } } } })),
    ).toEqual([id]);
    expect(
      (
        await api(`/v2/tickets/${id}/messages.json`, {
          method: 'POST',
          key: owner,
          body: { message: 'Still there?', threadType: 'note' },
        })
      ).status,
    ).toBe(201);
    expect(
      ids(await api('/v2/tickets.json', { key: owner, query: { archived: 'true', filter: { id: { $eq: id } } } })),
    ).toEqual([]);
  });

  it('refuses another value, naming archived', async () => {
    for (const value of ['yes', 'TRUE', '2'])
      expectError(await api(`/v2/tickets.json?archived=${value}`, { key: owner }), 400, 'archived');
  });
});

describe('GET /v2/search/tickets.json?archived=', () => {
  it('answers the archived tickets, or the others, as the list does', async () => {
    const archived = await api('/desk/api/v2/search/tickets.json?pageSize=100&archived=true', { key: owner });
    expect(archived.status, archived.text).toBe(200);
    expect(ids(archived)).toEqual([t.oldSolved, t.oldClosed]);
    const others = await api('/desk/api/v2/search/tickets.json?pageSize=100&archived=false', { key: owner });
    expect(others.status, others.text).toBe(200);
    expect(mine(ids(others))).toEqual([t.recentSolved, t.oldOpen, t.justPast]);
    const words = await api('/v2/search/tickets.json?search=Archive&archived=true&statuses=6', { key: owner });
    expect(ids(words)).toEqual([t.oldClosed]);
  });

  it('refuses another value, naming archived', async () => {
    expectError(await api('/v2/search/tickets.json?archived=maybe', { key: owner }), 400, 'archived');
  });
});
