// Tickets beyond plain CRUD: bulk update by filter or filter_args (with a dry run), bulk delete,
// restore, spam (with the sender blacklisted), merge (threads move in time order, the folded
// tickets close as merged) and split (a new ticket from one thread entry).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { drained } from '../support/events';
import { awaitLogLines } from '../support/logs';

let site: SeededInstallation;
let agent: string;
let inbox: number;
let customer: number;
let priorities: number[];

beforeAll(async () => {
  site = await newInstallation('ticket-operations');
  agent = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: agent })).body.inboxes[0].id;
  customer = (
    await api('/v2/customers.json', { method: 'POST', key: agent, body: { email: 'Spammer@Operations.test' } })
  ).body.customer.id;
  priorities = (await api('/v2/ticketpriorities.json', { key: agent })).body.ticketpriorities.map(
    (p: { id: number }) => p.id,
  );
});

const newTicket = async (subject: string, message = 'hello') =>
  (await api('/v2/tickets.json', { method: 'POST', key: agent, body: { subject, inbox, customer, message } })).body
    .ticket.id as number;
const ticket = async (id: number) => (await api(`/v2/tickets/${id}.json`, { key: agent })).body.ticket;
const historyOf = async (id: number) => {
  await drained(site.id);
  const [row] = await rows<{ types: string[] }>(
    'SELECT array_agg(event_type ORDER BY id) AS types FROM ticket_activities WHERE ticket_id = $1',
    [id],
  );
  return row!.types ?? [];
};
const statusOf = async (ids: number[]) =>
  (await rows<{ status_id: number }>('SELECT status_id FROM tickets WHERE id = ANY($1) ORDER BY id', [ids])).map(
    (r) => r.status_id,
  );

describe('bulk update and delete', () => {
  it('filter_args beside the changes, with a dry run that answers what would change and changes nothing', async () => {
    const a = await newTicket('bulk one');
    const b = await newTicket('bulk two');
    const filter = { subject: { $contains: 'bulk' } };
    const dry = await api('/v2/tickets/update.json', {
      method: 'PATCH',
      key: agent,
      body: { ticket: { priority: priorities[0] }, filter_args: { filter, bulkDryExecute: true } },
    });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body).toEqual({ affected: 2, ids: [a, b], jobId: null, dryRun: true });
    expect((await ticket(a)).priority).toBeNull();
    const real = await api('/v2/tickets/update.json', {
      method: 'PATCH',
      key: agent,
      body: { ticket: { priority: priorities[0] }, filter_args: { filter: JSON.stringify(filter) } },
    });
    expect(real.body).toEqual({ affected: 2, ids: [a, b], jobId: null, dryRun: false });
    expect((await ticket(b)).priority).toEqual({ id: priorities[0], type: 'ticketpriorities' });
    // the bare form and the query form
    const bare = await api('/v2/tickets/update.json', {
      method: 'PATCH',
      key: agent,
      body: { priority: priorities[1], filter_args: { filter } },
    });
    expect(bare.body.affected).toBe(2);
    const query = await api('/v2/tickets/update.json', {
      method: 'PATCH',
      key: agent,
      query: { filter },
      body: { ticket: { priority: priorities[2] } },
    });
    expect(query.body.affected).toBe(2);
    expect(await historyOf(a)).toEqual(['ticket.created', 'ticket.priority', 'ticket.priority', 'ticket.priority']);
  });

  it('refuses a filter named twice or not at all, a bad filter_args; nothing changes', async () => {
    const id = await newTicket('bulk refusals');
    const filter = { id };
    expectError(
      await api('/v2/tickets/update.json', {
        method: 'PATCH',
        key: agent,
        query: { filter },
        body: { ticket: { priority: 2 }, filter_args: { filter } },
      }),
      400,
      'filter_args.filter',
    );
    expectError(
      await api('/v2/tickets/update.json', { method: 'PATCH', key: agent, body: { ticket: { priority: 2 } } }),
      400,
      'filter',
    );
    expectError(
      await api('/v2/tickets/update.json', {
        method: 'PATCH',
        key: agent,
        body: { ticket: { priority: 2 }, filter_args: { filter, bulkDryExecute: 'yes' } },
      }),
      400,
      /filter_args/,
    );
    expectError(
      await api('/v2/tickets/update.json', {
        method: 'PATCH',
        key: agent,
        body: { ticket: { priority: 2 }, filter_args: { filter: { nope: 1 } } },
      }),
      400,
      /nope/,
    );
    expectError(
      await api('/v2/tickets/update.json', {
        method: 'PATCH',
        key: agent,
        body: { ticket: { priority: 2 }, filter_args: { filter, bulkDryExecute: 'yes' } },
      }),
      400,
      /bulkDryExecute/,
    );
    // held to what a single update is: no collaborator as agent, no ticket moved out of the agent's sight
    const stored = () => rows('SELECT inbox_id, agent_id, priority_id, updated_at FROM tickets WHERE id = $1', [id]);
    const before = await stored();
    expectError(
      await api('/v2/tickets/update.json', {
        method: 'PATCH',
        key: agent,
        body: { ticket: { agent: site.users.collaborator.id }, filter_args: { filter } },
      }),
      400,
      'ticket.agent',
    );
    const hidden = (
      await api('/v2/inboxes.json', {
        method: 'POST',
        key: site.users.owner.apiKey,
        body: { name: 'Hidden', email: 'hidden@operations.test' },
      })
    ).body.inbox.id;
    expectError(
      await api('/v2/tickets/update.json', {
        method: 'PATCH',
        key: agent,
        body: { ticket: { inbox: hidden }, filter_args: { filter, bulkDryExecute: true } },
      }),
      403,
    );
    expectError(
      await api('/v2/tickets/update.json', {
        method: 'PATCH',
        key: agent,
        body: { ticket: { inbox: hidden }, filter_args: { filter } },
      }),
      403,
    );
    expect((await ticket(id)).inbox.id).toBe(inbox);
    expect((await ticket(id)).priority).toBeNull();
    expect(await stored()).toEqual(before);
  });

  it('bulk delete by filter, then restore one; restoring a live ticket changes nothing', async () => {
    const a = await newTicket('to delete in bulk');
    const b = await newTicket('to delete in bulk');
    const gone = await api('/v2/tickets/delete.json', {
      method: 'DELETE',
      key: agent,
      query: { filter: { subject: 'to delete in bulk' } },
    });
    expect(gone.body).toEqual({ affected: 2, ids: [a, b], jobId: null, dryRun: false });
    expectError(await api(`/v2/tickets/${a}.json`, { key: agent }), 404, 'id');
    const back = await api(`/v2/tickets/${a}/restore.json`, { method: 'POST', key: agent });
    expect(back.status, back.text).toBe(200);
    expect(back.body.ticket).toMatchObject({ id: a, state: 'active' });
    expect((await api(`/v2/tickets/${a}/restore.json`, { method: 'POST', key: agent })).status).toBe(200);
    expectError(await api(`/v2/tickets/${b}.json`, { key: agent }), 404, 'id');
    expect(await historyOf(a)).toEqual(['ticket.created', 'ticket.deleted', 'ticket.restored']);
    const other = await newInstallation('ticket-operations-other');
    expectError(
      await api(`/v2/tickets/${b}/restore.json`, { method: 'POST', key: other.users.owner.apiKey }),
      404,
      'id',
    );
    expectError(
      await api(`/v2/tickets/${b}/restore.json`, { method: 'POST', key: site.users.collaborator.apiKey }),
      403,
    );
  });
});

describe('spam', () => {
  it('marks the ticket spam and, when asked, puts the sender on the blacklist once (a whitelisted sender moves there)', async () => {
    const id = await newTicket('buy now');
    const marked = await api(`/v2/tickets/${id}/spam.json`, { method: 'POST', key: agent, body: {} });
    expect(marked.status, marked.text).toBe(200);
    expect(marked.body.ticket.status).toEqual({ id: 7, type: 'ticketstatuses' });
    expect(
      (await api('/v2/spamlists.json', { key: agent, query: { filter: { term: 'spammer@operations.test' } } })).body
        .spamlists,
    ).toEqual([]);
    await api('/v2/spamlists.json', {
      method: 'POST',
      key: site.users.owner.apiKey,
      body: { term: 'spammer@operations.test', type: 'whitelist' },
    });
    for (let i = 0; i < 2; i++)
      expect(
        (await api(`/v2/tickets/${id}/spam.json`, { method: 'POST', key: agent, body: { blacklist: true } })).status,
      ).toBe(200);
    const list = (
      await api('/v2/spamlists.json', { key: agent, query: { filter: { term: 'spammer@operations.test' } } })
    ).body.spamlists;
    expect(list).toEqual([expect.objectContaining({ term: 'spammer@operations.test', type: 'blacklist' })]);
    expect(await historyOf(id)).toEqual(['ticket.created', 'ticket.status']);
    expectError(
      await api(`/v2/tickets/${id}/spam.json`, { method: 'POST', key: agent, body: { blacklist: 'yes' } }),
      400,
      'blacklist',
    );
    expectError(
      await api(`/v2/tickets/${id}/spam.json`, { method: 'POST', key: agent, body: { reason: 'x', blacklist: 1 } }),
      400,
      'blacklist',
    );
    expectError(await api(`/v2/tickets/2000000000/spam.json`, { method: 'POST', key: agent, body: {} }), 404, 'id');
  });
});

describe('merge', () => {
  it('folds tickets in: threads move and read in time order, the folded close as merged, one line each', async () => {
    const older = await newTicket('older', 'first of all');
    const kept = await newTicket('kept', 'second');
    await api(`/v2/tickets/${older}/messages.json`, {
      method: 'POST',
      key: agent,
      body: { message: 'third, on the older one' },
    });
    const merged = await api(`/v2/tickets/${kept}/merge.json`, {
      method: 'POST',
      key: agent,
      body: { tickets: [{ id: older, type: 'tickets' }] },
    });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.ticket).toMatchObject({ id: kept, messageCount: 3, previewText: 'third, on the older one' });
    const thread = await api(`/v2/tickets/${kept}/messages.json`, { key: agent });
    expect(thread.body.messages.map((m: any) => m.textBody)).toEqual([
      'first of all',
      'second',
      'third, on the older one',
    ]);
    expect(await ticket(older)).toMatchObject({
      status: { id: 6 },
      mergedInto: { id: kept, type: 'tickets' },
      messageCount: 0,
      previewText: '',
    });
    const open = await api('/v2/tickets.json', {
      key: agent,
      query: { filter: { mergedInto: null, id: { $in: [older, kept] } } },
    });
    expect(open.body.tickets.map((t: any) => t.id)).toEqual([kept]);
    expect(await historyOf(older)).toEqual([
      'ticket.created',
      'ticket.agent.reply',
      'ticket.status',
      'ticket.mergedinto',
    ]);
    expect(await historyOf(kept)).toEqual(['ticket.created', 'ticket.merged']);
  });

  it('refuses itself, a merged ticket, an unknown or foreign ticket, bad bodies; nothing moves', async () => {
    const a = await newTicket('merge a');
    const b = await newTicket('merge b');
    const other = await newInstallation('ticket-merge-other');
    const otherInbox = (await api('/v2/inboxes.json', { key: other.users.owner.apiKey })).body.inboxes[0].id;
    const foreign = (
      await api('/v2/tickets.json', {
        method: 'POST',
        key: other.users.owner.apiKey,
        body: { subject: 'x', inbox: otherInbox, customer: { email: 'f@o.test' }, message: 'x' },
      })
    ).body.ticket.id;
    const merge = (id: number, body: unknown) =>
      api(`/v2/tickets/${id}/merge.json`, { method: 'POST', key: agent, body });
    expectError(await merge(a, { tickets: [a] }), 400, 'tickets[0]');
    expectError(await merge(a, { tickets: [b, foreign] }), 400, 'tickets[1]');
    expectError(await merge(a, { tickets: [] }), 400, 'tickets');
    expectError(await merge(a, { tickets: ['x'] }), 400, /tickets/);
    expectError(await merge(a, { ticket: [b] }), 400, /ticket/);
    expectError(await merge(foreign, { tickets: [a] }), 404, 'id');
    expect(await statusOf([a, b])).toEqual([1, 1]);
    expect((await merge(a, { tickets: [b] })).status).toBe(200);
    expectError(await merge(a, { tickets: [b] }), 400, 'tickets[0]');
    expectError(await merge(b, { tickets: [a] }), 409, 'id');
  });
});

describe('split', () => {
  it('a new ticket from one thread entry: the entry moves, the customer is its writer, the old ticket says so', async () => {
    const source = await newTicket('two questions', 'question one');
    const reply = await api(`/v2/tickets/${source}/messages.json`, {
      method: 'POST',
      key: agent,
      body: { message: 'question two, as noted' },
    });
    const entry = reply.body.message.id;
    await drained(site.id);
    const requestId = `split-${Math.random().toString(36).slice(2)}`;
    const split = await api('/v2/tickets.json', {
      method: 'POST',
      key: agent,
      body: { ticket: { subject: 'question two', inbox, fromThreadId: entry, fromTicketId: source } },
      headers: { 'x-request-id': requestId },
    });
    expect(split.status, split.text).toBe(201);
    // the entry read first, then one batch
    expect((await awaitLogLines({ requestId }))[0]!.dbRoundTrips).toBe(2);
    const created = split.body.ticket;
    expect(created).toMatchObject({
      parent: { id: source, type: 'tickets' },
      customer: { id: customer },
      messageCount: 1,
      previewText: 'question two, as noted',
    });
    expect((await api(`/v2/messages/${entry}.json`, { key: agent })).body.message.ticket).toEqual({
      id: created.id,
      type: 'tickets',
    });
    expect(await ticket(source)).toMatchObject({ messageCount: 1, previewText: 'question one' });
    expect(await historyOf(source)).toEqual(['ticket.created', 'ticket.agent.reply', 'ticket.status', 'ticket.split']);
    expect(await historyOf(created.id)).toEqual(['ticket.created']);
  });

  it('refuses an unknown, draft or foreign entry, a mismatched ticket, and a message beside it; nothing written', async () => {
    const source = await newTicket('split refusals');
    const draft = (
      await api(`/v2/tickets/${source}/messages.json`, {
        method: 'POST',
        key: agent,
        body: { message: 'draft', isDraft: true },
      })
    ).body.message.id;
    const [before] = await rows<{ n: number }>('SELECT count(*)::int AS n FROM tickets WHERE installation_id = $1', [
      site.id,
    ]);
    const create = (body: Record<string, unknown>) =>
      api('/v2/tickets.json', { method: 'POST', key: agent, body: { subject: 's', inbox, ...body } });
    expectError(await create({ fromThreadId: 2_000_000_000 }), 400, 'ticket.fromThreadId');
    expectError(await create({ fromThreadId: draft }), 400, 'ticket.fromThreadId');
    const [first] = await rows<{ id: number }>(
      'SELECT id FROM ticket_messages WHERE ticket_id = $1 ORDER BY id LIMIT 1',
      [source],
    );
    expectError(await create({ fromThreadId: first!.id, fromTicketId: source + 100000 }), 400, 'ticket.fromTicketId');
    expectError(await create({ fromThreadId: first!.id, message: 'mine' }), 400, 'ticket.message');
    expectError(await create({ fromThreadId: 'x' }), 400, /fromThreadId/);
    const other = await newInstallation('ticket-split-other');
    const otherInbox = (await api('/v2/inboxes.json', { key: other.users.owner.apiKey })).body.inboxes[0].id;
    expectError(
      await api('/v2/tickets.json', {
        method: 'POST',
        key: other.users.owner.apiKey,
        body: { subject: 's', inbox: otherInbox, fromThreadId: first!.id },
      }),
      400,
      'ticket.fromThreadId',
    );
    const [after] = await rows<{ n: number }>('SELECT count(*)::int AS n FROM tickets WHERE installation_id = $1', [
      site.id,
    ]);
    expect(after!.n).toBe(before!.n);
  });
});
