// GET /v2/search/tickets.json: words over subject, thread and customer (ranked, exact totals, no
// ceiling), every facet the platform names in both list forms, the platform client's default
// parameters, and a 400 naming each contradiction instead of a silently widened list.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { PgDialect } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { searchColumns, THREAD_SEARCH_CHARS } from '../../src/resources/tickets/ticket-search';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { drained } from '../support/events';

let site: SeededInstallation;
let owner: string;
let agent: string;
let inbox: number;
let otherInbox: number;
let tagA: number;
let tagB: number;
const t: Record<string, number> = {};

const search = (query: string, key = owner) => api(`/v2/search/tickets.json?${query}`, { key });
const ids = (response: { body: any }) => response.body.tickets.map((ticket: any) => ticket.id);

beforeAll(async () => {
  site = await newInstallation('ticket-search');
  owner = site.users.owner.apiKey;
  agent = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id;
  otherInbox = (
    await api('/v2/inboxes.json', { method: 'POST', key: owner, body: { name: 'Hidden', email: 'hidden@search.test' } })
  ).body.inbox.id;
  tagA = (await api('/v2/tags.json', { method: 'POST', key: owner, body: { name: 'alpha', color: '#111111' } })).body
    .tag.id;
  tagB = (await api('/v2/tags.json', { method: 'POST', key: owner, body: { name: 'beta', color: '#222222' } })).body.tag
    .id;
  const create = async (name: string, body: Record<string, unknown>) => {
    const created = await api('/v2/tickets.json', { method: 'POST', key: owner, body: { inbox, ...body } });
    expect(created.status, created.text).toBe(201);
    t[name] = created.body.ticket.id;
  };
  await create('refundSubject', {
    subject: 'Refund for order 1234',
    customer: { email: 'olga@shop.test' },
    message: 'Please send the money back',
    tags: [{ id: tagA }],
  });
  await create('refundBody', {
    subject: 'Question',
    customer: { email: 'piet@shop.test' },
    message: 'I would like a refund of my invoice',
    tags: [{ id: tagA }, { id: tagB }],
  });
  await create('printer', {
    subject: 'Printer jammed',
    customer: { email: 'quinn@printers.test' },
    message: 'The printer says paper jam',
    agent: site.users.agent.id,
  });
  await create('hidden', {
    subject: 'Refund in another inbox',
    inbox: otherInbox,
    customer: { email: 'olga@shop.test' },
    message: 'refund',
  });
  expect(
    (
      await api(`/v2/tickets/${t.printer}/messages.json`, {
        method: 'POST',
        key: owner,
        body: { message: 'Internal: replace the roller', threadType: 'note' },
      })
    ).status,
  ).toBe(201);
});

describe('words', () => {
  it('finds words in the subject, the thread, notes and the customer, the subject ranked first', async () => {
    const refund = await search('search=refund');
    expect(refund.status, refund.text).toBe(200);
    // both subjects first (the newer first when they rank alike), the thread's match last
    expect(ids(refund)).toEqual([t.hidden, t.refundSubject, t.refundBody]);
    expect(refund.body.meta.page.count).toBe(3);
    expect(refund.body.pagination.records).toBe(3);
    expect(ids(await search('search=roller'))).toEqual([t.printer]);
    expect(ids(await search('search=quinn'))).toEqual([t.printer]);
    expect(ids(await search('search=printers'))).toEqual([t.printer]);
    expect(ids(await search('search=quinn@printers.test'))).toEqual([t.printer]);
  });

  it('needs every word, anywhere in the ticket; honours quotes and minus', async () => {
    expect(ids(await search('search=refund%20invoice'))).toEqual([t.refundBody]);
    // "order" in the subject, "money" in the thread: one ticket has both
    expect(ids(await search('search=order%20money'))).toEqual([t.refundSubject]);
    expect(ids(await search('search=refund%20-invoice&inboxes=' + inbox))).toEqual([t.refundSubject]);
    expect(ids(await search('search=%22paper%20jam%22'))).toEqual([t.printer]);
  });

  it('exact matches the phrase as written', async () => {
    expect(ids(await search('search=paper%20jam&exact=true'))).toEqual([t.printer]);
    expect(ids(await search('search=jam%20paper&exact=true'))).toEqual([]);
    expect(ids(await search('search=jam%20paper'))).toEqual([t.printer]);
  });

  it('follows edits of the thread and of the subject', async () => {
    const patched = await api(`/v2/tickets/${t.printer}.json`, {
      method: 'PATCH',
      key: owner,
      body: { ticket: { subject: 'Scanner jammed' } },
    });
    expect(patched.status).toBe(200);
    expect(ids(await search('search=scanner'))).toEqual([t.printer]);
    expect(ids(await search('search=printer%20jammed&exact=true'))).toEqual([]);
  });

  it('keeps a thread of a million characters of distinct words searchable, inside the tsvector limit', async () => {
    const words = Array.from({ length: 140_000 }, (_, i) => `w${i.toString(36)}x`)
      .join(' ')
      .slice(0, 999_000);
    const reply = await api(`/v2/tickets/${t.refundSubject}/messages.json`, {
      method: 'POST',
      key: owner,
      body: { message: words, threadType: 'note' },
    });
    expect(reply.status, reply.text.slice(0, 300)).toBe(201);
    expect(ids(await search('search=w1x'))).toEqual([t.refundSubject]);
  });

  it('appends each new entry to the document, giving the very document a rewrite from the thread gives', async () => {
    // an installation of its own: the facets below count this one's tickets
    const key = (await newInstallation('ticket-search-append')).users.owner.apiKey;
    const ownInbox = (await api('/v2/inboxes.json', { key })).body.inboxes[0].id;
    const created = await api('/v2/tickets.json', {
      method: 'POST',
      key,
      body: {
        inbox: ownInbox,
        subject: 'Appended, not rewritten',
        customer: { email: 'rhea@shop.test' },
        message: 'First words here',
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.ticket.id;
    const add = async (body: Record<string, unknown>) => {
      const reply = await api(`/v2/tickets/${id}/messages.json`, { method: 'POST', key, body });
      expect(reply.status, reply.text.slice(0, 300)).toBe(201);
    };
    const stored = async () =>
      (
        await rows<{ v: string; chars: number }>(
          'SELECT search_vector::text AS v, search_thread_chars AS chars FROM tickets WHERE id = $1',
          [id],
        )
      )[0]!;
    // the document as `refreshSearch` writes it from the whole thread
    const rewritten = async () => {
      const set = new PgDialect().sqlToQuery(sql`${searchColumns}`);
      const n = set.params.length;
      await rows(`UPDATE tickets t SET ${set.sql} FROM customers c WHERE c.id = t.customer_id AND t.id = $${n + 1}`, [
        ...set.params,
        id,
      ]);
      return stored();
    };
    await add({ message: '<p>Second: <b>bold</b> words, 42 numbers &amp; punctuation!</p>', threadType: 'message' });
    await add({ message: 'A note with a **draft**-like word', threadType: 'note', editMethod: 'markdown' });
    await add({ message: 'kept back: zanzibar', threadType: 'message', isDraft: true });
    await add({ message: '<p></p>', threadType: 'note' });
    await add({ message: 'émigré ünïcode 東京 words again', threadType: 'message' });
    const appended = await stored();
    expect(appended.chars).toBeGreaterThan(60);
    expect(appended.v).toContain("'punctuation':");
    expect(appended.v).not.toContain('zanzibar');
    expect(await rewritten()).toEqual(appended);
    expect(ids(await search('search=%22words%20again%22', key))).toEqual([id]);

    // an entry that crosses the bound: the document is rewritten, cut at the bound
    const words = Array.from({ length: 50_000 }, (_, i) => `b${i.toString(36)}q`).join(' ');
    await add({ message: words, threadType: 'note' });
    await add({ message: words.replace(/q/g, 'r'), threadType: 'note' });
    await add({ message: words.replace(/q/g, 's'), threadType: 'note' });
    await add({ message: words.replace(/q/g, 't'), threadType: 'note' });
    const full = await stored();
    expect(full.chars).toBe(THREAD_SEARCH_CHARS);
    expect(await rewritten()).toEqual(full);
    // past the bound a new entry changes nothing: it lies after the thread's first 300,000 characters
    await add({ message: 'quokka', threadType: 'message' });
    expect(await stored()).toEqual(full);
    expect(ids(await search('search=quokka', key))).toEqual([]);
    expect(ids(await search('search=b1s', key))).toEqual([id]);
    expect(await rewritten()).toEqual(full);
  });

  it('follows a customer renamed, once the drain has run', async () => {
    const customer = (await api(`/v2/tickets/${t.refundBody}.json`, { key: owner })).body.ticket.customer.id;
    expect(
      (
        await api(`/v2/customers/${customer}.json`, {
          method: 'PATCH',
          key: owner,
          body: { customer: { firstName: 'Zebediah' } },
        })
      ).status,
    ).toBe(200);
    await drained(site.id);
    expect(ids(await search('search=zebediah'))).toEqual([t.refundBody]);
  });
});

describe('facets', () => {
  it('takes lists repeated, bracketed and comma-joined', async () => {
    const repeated = ids(await search(`tags=${tagA}&tags=${tagB}`));
    expect(repeated.sort()).toEqual([t.refundSubject, t.refundBody].sort());
    expect(ids(await search(`tags[]=${tagA}&tags[]=${tagB}`)).sort()).toEqual(repeated.sort());
    expect(ids(await search(`tags=${tagA},${tagB}`)).sort()).toEqual(repeated.sort());
    expect(ids(await search(`tags=${tagA}&tags=${tagB}&tagRequireAll=true`))).toEqual([t.refundBody]);
    expect(ids(await search(`excludeTags=${tagB}&search=refund`)).sort()).toEqual([t.refundSubject, t.hidden].sort());
    expect(ids(await search('onlyUntagged=true')).sort()).toEqual([t.printer, t.hidden].sort());
  });

  it('filters by agents, unassigned, inboxes, customers, dates, subject keywords and a JSON filter', async () => {
    expect(ids(await search(`agents=${site.users.agent.id}`))).toEqual([t.printer]);
    expect(ids(await search('unassigned=true')).sort()).toEqual([t.refundSubject, t.refundBody, t.hidden].sort());
    expect(ids(await search(`excludeInboxes=${inbox}`))).toEqual([t.hidden]);
    const olga = (await api(`/v2/tickets/${t.hidden}.json`, { key: owner })).body.ticket.customer.id;
    expect(ids(await search(`customers[]=${olga}`)).sort()).toEqual([t.refundSubject, t.hidden].sort());
    expect(ids(await search('subjectKeywords=refund&subjectKeywords=order'))).toEqual([t.refundSubject]);
    expect((await search('startDate=2000-01-01&endDate=2000-01-02')).body.tickets).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await search(`startDate=${today}&endDate=${today}`)).body.meta.page.count).toBe(4);
    expect(
      ids(await search(`filter=${encodeURIComponent(JSON.stringify({ subject: { $contains: 'Question' } }))}`)),
    ).toEqual([t.refundBody]);
    expect(ids(await search(`ticket=${t.printer}`))).toEqual([t.printer]);
    expect((await search('onlyWithAttachment=true')).body.tickets).toEqual([]);
    expect((await search('omitMerged=true')).body.meta.page.count).toBe(4);
  });

  it("accepts the platform client's default parameters", async () => {
    const sdk = await search(
      'exact=false&excludeWorkEmails=false&filter=&includeArchivedAgents=false&omitMerged=false&onlyUntagged=false&onlyWithAttachment=false&search=&tagRequireAll=false&task=0&timeRange=&unassigned=false&statuses=1&statuses=3',
    );
    expect(sdk.status, sdk.text).toBe(200);
    expect(sdk.body.meta.page.count).toBe(4);
  });

  it('pages with a true total and no ceiling', async () => {
    const first = await search('pageSize=1&page=4');
    expect(first.status).toBe(200);
    expect(first.body.tickets).toHaveLength(1);
    expect(first.body.meta.page).toMatchObject({ page: 4, pageSize: 1, count: 4, pages: 4, hasMore: false });
    expect((await search('pageSize=200')).status).toBe(200);
  });
});

describe('what is refused or hidden', () => {
  it('answers 400 naming each contradiction and bad value', async () => {
    expectError(await search(`unassigned=true&agents=${site.users.agent.id}`), 400, 'unassigned');
    expectError(await search(`onlyUntagged=true&tags=${tagA}`), 400, 'onlyUntagged');
    expectError(await search('tagRequireAll=true'), 400, 'tagRequireAll');
    expectError(await search(`inboxes=${inbox}&excludeInboxes=${inbox}`), 400, 'excludeInboxes');
    expectError(await search(`tags=${tagA}&excludeTags=${tagA}`), 400, 'excludeTags');
    expectError(await search('startDate=2026-02-01&endDate=2026-01-01'), 400, 'endDate');
    expectError(await search('exact=true'), 400, 'exact');
    expectError(await search('pageSize=0'), 400, 'pageSize');
    expectError(await search('pageSize=201'), 400, 'pageSize');
    expectError(await search('page=0'), 400, 'page');
    expectError(await search('statuses=abc'), 400, 'statuses');
    expectError(await search('startDate=tomorrow'), 400, 'startDate');
    expectError(await search('exact=maybe'), 400, 'exact');
    expectError(await search('search=%21%21%21'), 400, 'search');
    expectError(await search('colour=red'), 400, /colour/);
    expectError(await search('task=12'), 400, 'task');
    expectError(await search('timeRange=today'), 400, 'timeRange');
    expectError(
      await search(`customfields=${encodeURIComponent('[{"id": 999999, "value": "gold"}]')}`),
      400,
      'customfields[0].id',
    );
    expectError(await search(`customfields=${encodeURIComponent('[{"id": "x"}]')}`), 400, 'customfields[0].id');
    expectError(await search('customfields=nope'), 400, 'customfields');
    expectError(await search(`filter=${encodeURIComponent('{"colour": 1}')}`), 400, 'filter.colour');
    expectError(await search('includes=nothing'), 400, 'includes');
    // what Postgres could not hold is a 400 here, never a failed statement
    expectError(await search('search=ab%00cd'), 400, 'search');
    expectError(await search('subjectKeywords=ab%00'), 400, 'subjectKeywords');
    expectError(await search('startDate=2026-02-30'), 400, 'startDate');
    expectError(await search('endDate=0000-01-01'), 400, 'endDate');
    expectError(await search('updatedAtFrom=0000-01-01T00:00:00Z'), 400, 'updatedAtFrom');
    expectError(await search(`ticket=${t.printer},${t.hidden}`), 400, 'ticket');
    expectError(await search('ticket=0'), 400, 'ticket');
  });

  it('shows an agent only the tickets of their inboxes, and another installation nothing', async () => {
    expect(ids(await search('search=refund', agent)).sort()).toEqual([t.refundSubject, t.refundBody].sort());
    const stranger = await newInstallation('ticket-search-other');
    expect((await search('search=refund', stranger.users.owner.apiKey)).body.tickets).toEqual([]);
    expectError(await api('/v2/search/tickets.json'), 401);
  });
});
