// A ticket's thread: replies and notes (with a status change in the same write, and the agent's
// reply moving an active ticket to waiting), drafts, and the thread read in pages apart from the
// ticket, also as /v2/messages.json.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { drained, eventsSince, lastEventId, summary } from '../support/events';

let site: SeededInstallation;
let agent: string;
let inbox: number;
let customer: number;

beforeAll(async () => {
  site = await newInstallation('threads');
  agent = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: agent })).body.inboxes[0].id;
  customer = (await api('/v2/customers.json', { method: 'POST', key: agent, body: { email: 'thread@tickets.test' } }))
    .body.customer.id;
});

const newTicket = async () =>
  (
    await api('/v2/tickets.json', {
      method: 'POST',
      key: agent,
      body: { subject: 'Thread', inbox, customer, message: 'first' },
    })
  ).body.ticket.id as number;
const post = (id: number, body: unknown, key = agent) =>
  api(`/v2/tickets/${id}/messages.json`, { method: 'POST', key, body });
const ticket = async (id: number) => (await api(`/v2/tickets/${id}.json`, { key: agent })).body.ticket;

describe('replies and notes', () => {
  it("an agent's reply is the teammate's entry and moves an active ticket to waiting, one transaction with its events", async () => {
    const id = await newTicket();
    const mark = await lastEventId(site.id);
    const reply = await post(id, { message: '<p>On it</p>', threadType: 'message', cc: ['boss@tickets.test'] });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.message).toMatchObject({
      message: '<p>On it</p>',
      htmlBody: '<p>On it</p>',
      threadType: 'message',
      ticket: { id, type: 'tickets' },
      customer: null,
      cc: ['boss@tickets.test'],
      createdBy: { id: site.users.agent.id, type: 'users' },
    });
    expect(await ticket(id)).toMatchObject({ status: { id: 3 }, messageCount: 2, previewText: 'On it' });
    expect(summary(await eventsSince(site.id, mark))).toEqual(['messages:created', 'tickets:updated']);
  });

  it("the customer's reply is the customer's entry and makes a waiting or solved ticket active; a closed one stays closed", async () => {
    const id = await newTicket();
    expect((await post(id, { message: 'On it' })).status).toBe(201);
    expect((await ticket(id)).status.id).toBe(3);
    const mark = await lastEventId(site.id);
    const reply = await post(id, { message: 'Thanks, but it still fails', customer: { id: customer } });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.message).toMatchObject({ threadType: 'message', customer: { id: customer, type: 'customers' } });
    expect(await ticket(id)).toMatchObject({
      status: { id: 1 },
      messageCount: 3,
      previewText: 'Thanks, but it still fails',
    });
    expect(summary(await eventsSince(site.id, mark))).toEqual(['messages:created', 'tickets:updated']);

    // solved: the customer says it is not
    expect(
      (await api(`/v2/tickets/${id}.json`, { method: 'PATCH', key: agent, body: { ticket: { status: { id: 5 } } } }))
        .status,
    ).toBe(200);
    expect((await post(id, { message: 'Not solved', customer: { id: customer } })).status).toBe(201);
    expect((await ticket(id)).status.id).toBe(1);
    // closed stays closed; a named status still wins
    expect(
      (await api(`/v2/tickets/${id}.json`, { method: 'PATCH', key: agent, body: { ticket: { status: { id: 6 } } } }))
        .status,
    ).toBe(200);
    expect((await post(id, { message: 'Hello again', customer: { id: customer } })).status).toBe(201);
    expect((await ticket(id)).status.id).toBe(6);
    expect((await post(id, { message: 'Reopen', customer: { id: customer }, status: { id: 4 } })).status).toBe(201);
    expect((await ticket(id)).status.id).toBe(4);
    await drained(site.id);
    const history = await api(`/v2/tickets/${id}/activities.json?pageSize=100`, { key: agent });
    expect(history.status, history.text).toBe(200);
    expect(
      history.body.ticketactivities.filter((a: { eventType: string }) => a.eventType === 'ticket.customer.reply'),
    ).toHaveLength(4);
    // `customer: null`, as a teammate's entry reads back, is the teammate's own entry
    const echoed = await post(id, { message: 'Ours', customer: null });
    expect(echoed.status, echoed.text).toBe(201);
    expect(echoed.body.message).toMatchObject({
      customer: null,
      createdBy: { id: site.users.agent.id, type: 'users' },
    });
  });

  it("refuses a customer's entry that is not the ticket customer's, a note or a draft, writing nothing", async () => {
    const id = await newTicket();
    const other = (
      await api('/v2/customers.json', { method: 'POST', key: agent, body: { email: 'other@tickets.test' } })
    ).body.customer.id;
    const before = await rows('SELECT count(*)::int AS n FROM ticket_messages WHERE ticket_id = $1', [id]);
    expectError(await post(id, { message: 'x', customer: { id: other } }), 400, 'message.customer');
    expectError(
      await post(id, { message: 'x', customer: { id: customer }, threadType: 'note' }),
      400,
      'message.customer',
    );
    expectError(await post(id, { message: 'x', customer: { id: customer }, isDraft: true }), 400, 'message.customer');
    expectError(await post(id, { message: 'x', customer: 'nope' }), 400, 'customer');
    expect(await rows('SELECT count(*)::int AS n FROM ticket_messages WHERE ticket_id = $1', [id])).toEqual(before);
    expect((await ticket(id)).status.id).toBe(1);
  });

  it('a note changes no status and no count; a named status wins; a draft is not counted nor previewed', async () => {
    const id = await newTicket();
    expect((await post(id, { message: 'internal', threadType: 'note' })).status).toBe(201);
    expect(await ticket(id)).toMatchObject({ status: { id: 1 }, messageCount: 1, previewText: 'first' });
    expect((await post(id, { message: 'solved it', status: { id: 5 } })).status).toBe(201);
    expect((await ticket(id)).status.id).toBe(5);
    expect((await post(id, { message: 'not yet sent', isDraft: true })).status).toBe(201);
    expect(await ticket(id)).toMatchObject({ messageCount: 2, previewText: 'solved it' });
  });

  it('takes the body as the platform client marshals a Message, and refuses what it must (nothing written)', async () => {
    const id = await newTicket();
    const sdk = await post(id, {
      id: 0,
      type: null,
      bcc: null,
      cc: null,
      ticket: { id, type: 'tickets', meta: null },
      viewedByCustomerAt: null,
      message: 'from the SDK',
      threadType: 'message',
    });
    expect(sdk.status, sdk.text).toBe(201);
    const before = await rows('SELECT count(*)::int AS n FROM ticket_messages WHERE installation_id = $1', [site.id]);
    expectError(await post(id, { threadType: 'note' }), 400, 'message');
    expectError(await post(id, { message: 'x', threadType: 'forward' }), 400, 'threadType');
    expectError(await post(id, { message: 'x', status: { id: 2_000_000_000 } }), 400, 'message.status');
    expectError(await post(id, { message: 'x', colour: 'red', threadType: 'forward' }), 400, 'threadType');
    expectError(await post(2_000_000_000, { message: 'x' }), 404, 'id');
    expectError(await post(id, { message: 'x' }, site.users.collaborator.apiKey), 403);
    const other = await newInstallation('threads-other');
    expectError(await post(id, { message: 'x' }, other.users.owner.apiKey), 404, 'id');
    expect(await rows('SELECT count(*)::int AS n FROM ticket_messages WHERE installation_id = $1', [site.id])).toEqual(
      before,
    );
  });
});

describe('reading the thread', () => {
  it('pages a long thread apart from its ticket, newest first when asked; /v2/messages.json reads entries too', async () => {
    const id = await newTicket();
    for (let i = 1; i <= 12; i++)
      await post(id, { message: `entry ${i}`, threadType: i % 3 === 0 ? 'note' : 'message' });
    const page = await api(`/v2/tickets/${id}/messages.json`, { key: agent, query: { page: 2, pageSize: 5 } });
    expect(page.status, page.text).toBe(200);
    // the first message, then entries 1 to 12: the second page of five is entries 5 to 9
    expect(page.body.messages.map((m: any) => m.textBody)).toEqual([
      'entry 5',
      'entry 6',
      'entry 7',
      'entry 8',
      'entry 9',
    ]);
    expect(page.body.pagination).toEqual({ records: 13, pageSize: 5, pages: 3, page: 2, hasMorePages: true });
    const notes = await api(`/v2/tickets/${id}/messages.json`, {
      key: agent,
      query: { filter: { threadType: 'note' }, orderBy: 'createdAt', orderMode: 'desc' },
    });
    expect(notes.body.messages.map((m: any) => m.textBody)).toEqual(['entry 12', 'entry 9', 'entry 6', 'entry 3']);
    const one = await api(`/v2/messages/${page.body.messages[0].id}.json`, { key: agent, query: { includes: 'all' } });
    expect(one.body.message).toMatchObject({ textBody: 'entry 5', ticket: { id } });
    const all = await api('/v2/messages.json', { key: agent, query: { filter: { ticket: id }, pageSize: 50 } });
    expect(all.body.messages).toHaveLength(13);
  });

  it("is the ticket's readers' only: a ticket the caller does not see, or another installation's, is a 404", async () => {
    const id = await newTicket();
    expectError(await api(`/v2/tickets/${id}/messages.json`, { key: site.users.collaborator.apiKey }), 404, 'id');
    const other = await newInstallation('threads-read-other');
    expectError(await api(`/v2/tickets/${id}/messages.json`, { key: other.users.owner.apiKey }), 404, 'id');
    const entry = (await api(`/v2/tickets/${id}/messages.json`, { key: agent })).body.messages[0].id;
    expectError(await api(`/v2/messages/${entry}.json`, { key: other.users.owner.apiKey }), 404, 'id');
    expect((await api('/v2/messages.json', { key: site.users.collaborator.apiKey })).body.messages).toEqual([]);
  });
});
