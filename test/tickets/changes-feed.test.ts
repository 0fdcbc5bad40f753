// The change feed for sync: every ticket changed after a point, in (updatedAt, id) order, with a
// cursor that neither repeats nor skips a ticket, even when thousands change in one statement
// while a reader pages through.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';

let site: SeededInstallation;
let agent: string;
let inbox: number;
let customer: number;

beforeAll(async () => {
  site = await newInstallation('ticket-changes');
  agent = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: agent })).body.inboxes[0].id;
  customer = (await api('/v2/customers.json', { method: 'POST', key: agent, body: { email: 'sync@tickets.test' } }))
    .body.customer.id;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Seen {
  id: number;
  updatedAt: string;
  state: string;
}

/** Reads the feed from `start` until `done` says the reader has what it waits for (bounded). */
async function follow(
  key: string,
  start: Record<string, string | number>,
  done: (seen: Seen[]) => boolean,
  pageSize = 100,
  onPage?: (pages: number) => Promise<void>,
) {
  const seen: Seen[] = [];
  let query: Record<string, string | number> = { ...start, pageSize };
  let pages = 0;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const page = await api('/v2/tickets/changes.json', { key, query });
    expect(page.status, page.text).toBe(200);
    seen.push(...page.body.tickets.map((t: any) => ({ id: t.id, updatedAt: t.updatedAt, state: t.state })));
    pages++;
    await onPage?.(pages);
    query = { cursor: page.body.meta.cursor, pageSize };
    if (page.body.meta.endOfStream) {
      if (done(seen)) return { seen, cursor: page.body.meta.cursor as string };
      await sleep(250);
    }
  }
  throw new Error(`the feed did not deliver in time: ${seen.length} read`);
}

describe('the change feed', () => {
  it('gives created, replied and deleted tickets in order, and then only what changed after the cursor', async () => {
    const ids: number[] = [];
    for (const subject of ['one', 'two', 'three'])
      ids.push(
        (
          await api('/v2/tickets.json', {
            method: 'POST',
            key: agent,
            body: { subject, inbox, customer, message: 'x' },
          })
        ).body.ticket.id,
      );
    const first = await follow(agent, {}, (seen) => ids.every((id) => seen.some((s) => s.id === id)));
    expect(first.seen.map((s) => s.id)).toEqual(ids);
    await api(`/v2/tickets/${ids[0]}/messages.json`, {
      method: 'POST',
      key: agent,
      body: { message: 'a note', threadType: 'note' },
    });
    expect((await api(`/v2/tickets/${ids[2]}.json`, { method: 'DELETE', key: agent })).status).toBe(204);
    const next = await follow(agent, { cursor: first.cursor }, (seen) => seen.length >= 2);
    expect(next.seen.map((s) => [s.id, s.state])).toEqual([
      [ids[0], 'active'],
      [ids[2], 'deleted'],
    ]);
    // `since` starts after a time
    const since = await follow(agent, { since: first.seen[0]!.updatedAt }, (seen) => seen.length >= 3);
    expect(since.seen.map((s) => s.id)).toEqual([ids[1], ids[0], ids[2]]);
    // another installation's feed has none of them
    const other = await newInstallation('ticket-changes-other');
    const theirs = await api('/v2/tickets/changes.json', { key: other.users.owner.apiKey });
    expect(theirs.body.tickets).toEqual([]);
  });

  it('refuses two starting points, a cursor it never gave, a bad time and a huge page', async () => {
    const feed = (query: Record<string, string | number>) => api('/v2/tickets/changes.json', { key: agent, query });
    const cursor = (await feed({})).body.meta.cursor;
    expectError(await feed({ since: '2026-01-01T00:00:00Z', cursor }), 400, 'cursor');
    expectError(await feed({ cursor: 'not-a-cursor' }), 400, 'cursor');
    expectError(await feed({ cursor: btoa('["yesterday", 1]') }), 400, 'cursor');
    // what JavaScript would parse but the database would not, and an id past the database's integers
    expectError(await feed({ cursor: btoa('["Tue, 01 Jan 2026 00:00:00 GMT", 1]') }), 400, 'cursor');
    expectError(await feed({ cursor: btoa('["2026-01-01T00:00:00Z", 3000000000]') }), 400, 'cursor');
    expectError(await feed({ since: 'yesterday' }), 400, 'since');
    expectError(await feed({ since: '0000-01-01T00:00:00Z' }), 400, 'since');
    expectError(await feed({ pageSize: 1000 }), 400, 'pageSize');
    expectError(await feed({ includes: 'nope' }), 400, 'includes');
  });

  it('5,000 tickets changed by one statement while a reader pages through: none skipped, none repeated', async () => {
    const bulk = await newInstallation('ticket-changes-bulk');
    const key = bulk.users.owner.apiKey;
    const bulkInbox = (await api('/v2/inboxes.json', { key })).body.inboxes[0].id;
    const bulkCustomer = (
      await api('/v2/customers.json', { method: 'POST', key, body: { email: 'many@tickets.test' } })
    ).body.customer.id;
    await rows(
      `INSERT INTO tickets (installation_id, subject, inbox_id, customer_id) SELECT $1, 'ticket ' || n, $2, $3 FROM generate_series(1, 5000) n`,
      [bulk.id, bulkInbox, bulkCustomer],
    );
    let changedAt = '';
    const { seen } = await follow(
      key,
      {},
      (all) =>
        changedAt !== '' &&
        new Set(all.filter((s) => Date.parse(s.updatedAt) >= Date.parse(changedAt)).map((s) => s.id)).size === 5000,
      100,
      async (pages) => {
        if (pages !== 20) return;
        const [row] = await rows<{ at: string }>(
          `UPDATE tickets SET subject = subject || ' (changed)' WHERE installation_id = $1 RETURNING to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at`,
          [bulk.id],
        );
        changedAt = row!.at;
      },
    );
    const pairs = seen.map((s) => `${s.id}@${s.updatedAt}`);
    expect(new Set(pairs).size).toBe(pairs.length);
    const last = new Map(seen.map((s) => [s.id, s.updatedAt]));
    expect(last.size).toBe(5000);
    expect([...last.values()].every((at) => Date.parse(at) === Date.parse(changedAt))).toBe(true);
    // in (updatedAt, id) order throughout
    for (let i = 1; i < seen.length; i++) {
      const [a, b] = [seen[i - 1]!, seen[i]!];
      expect(Date.parse(a.updatedAt) < Date.parse(b.updatedAt) || (a.updatedAt === b.updatedAt && a.id < b.id)).toBe(
        true,
      );
    }
  });
});
