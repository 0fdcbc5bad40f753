// The live chat's writes a client waits for, counted in exchanges with the database (the request
// log's `dbRoundTrips`): a conversation's start (an agent's: 1; the widget's: its form's look-up
// and 1), its update (1, closed unanswered it becomes a ticket by the drain after), a chat made a
// ticket (its transcript read, then 1), a visitor's email proof confirmed (1). Refusals answer in
// the same exchanges, with the same 4xx, writing nothing; the events reach the drain at once.
import { createHash, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { checkedFetch } from '../support/contract';
import { fromAgent, fromContact, postSigned } from '../support/conversation-messages';
import { newInstallation, rows } from '../support/db';
import { drained, eventsSince, lastEventId, summary } from '../support/events';
import { awaitLogLines } from '../support/logs';
import { withRoundTrips } from '../support/round-trips';

let site: SeededInstallation;
let other: SeededInstallation;
let agent: string;
let form: string;
let inbox: number;
let customer: number;
const customerEmail = `known.${Date.now().toString(36)}@chat-trips.test`;

/** Before a request is counted: the drain of what came before is done, and the agent's credential remembered (kept 30 s). */
async function quiet() {
  await drained(site.id);
  await api('/v2/inboxes.json', { key: agent });
}

async function counted(path: string, request: Parameters<typeof withRoundTrips>[1]) {
  await quiet();
  return withRoundTrips(path, request);
}

const start = (body: unknown, key = agent) =>
  counted('/v2/conversations.json', { method: 'POST', key, body: { conversation: body } });
const count = async (table: string) =>
  (await rows<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE installation_id = $1`, [site.id]))[0]!.n;

beforeAll(async () => {
  site = await newInstallation('chat-trips');
  other = await newInstallation('chat-trips-other');
  agent = site.users.agent.apiKey;
  const admin = site.users.admin.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
  const made = await api('/v2/contactforms.json', {
    method: 'POST',
    key: admin,
    body: { contactform: { name: 'Chat', isLiveChatEnabled: true, inbox } },
  });
  expect(made.status, made.text).toBe(201);
  form = made.body.contactform.token;
  customer = (
    await api('/v2/customers.json', {
      method: 'POST',
      key: admin,
      body: { customer: { firstName: 'Known', email: customerEmail } },
    })
  ).body.customer.id;
});

describe("a conversation's start", () => {
  it("an agent's, with a new contact linked to the customer of its email: one exchange, its events drained at once", async () => {
    const mark = await lastEventId(site.id);
    const started = await start({
      contact: { name: 'Kim', email: customerEmail },
      subject: 'Hello',
      inbox: { id: inbox },
    });
    expect(started.answer.status, started.answer.text).toBe(201);
    expect(started.trips).toBe(1);
    const conversation = started.answer.body.conversation;
    expect(conversation).toMatchObject({
      subject: 'Hello',
      status: 'open',
      inbox: { id: inbox, type: 'inboxes' },
      token: expect.stringMatching(/^\d{24}$/),
      socketUrl: expect.stringContaining(`/v2/rooms/${conversation.token}/socket`),
    });
    expect(await rows('SELECT customer_id, name FROM contacts WHERE id = $1', [conversation.contactId])).toEqual([
      { customer_id: customer, name: 'Kim' },
    ]);
    expect(summary(await eventsSince(site.id, mark)).sort()).toEqual(['contacts:created', 'conversations:created']);
    await drained(site.id, 5_000);

    const again = await start({ contactId: conversation.contactId });
    expect(again.answer.status, again.answer.text).toBe(201);
    expect(again.trips).toBe(1);
    expect(again.answer.body.conversation.contactId).toBe(conversation.contactId);
  });

  it('refuses in the same exchange, writing nothing: a contact or an inbox not here', async () => {
    const theirContact = (
      await api('/v2/conversations.json', {
        method: 'POST',
        key: other.users.agent.apiKey,
        body: { conversation: { contact: { name: 'Theirs' } } },
      })
    ).body.conversation.contactId as number;
    const [conversations, contacts] = [await count('conversations'), await count('contacts')];
    const foreign = await start({ contactId: theirContact });
    expect(foreign.answer.status).toBe(400);
    expect(foreign.answer.body.errors).toEqual([
      { code: 'invalid', source: 'conversation.contactId', detail: `no contact ${theirContact} here` },
    ]);
    expect(foreign.trips).toBe(1);
    const noInbox = await start({ contact: { name: 'Lost', email: 'lost@chat-trips.test' }, inbox: { id: 987654 } });
    expect(noInbox.answer.status).toBe(400);
    expect(noInbox.answer.body.errors).toEqual([
      { code: 'invalid', source: 'conversation.inbox', detail: 'no inbox 987654 here' },
    ]);
    expect(noInbox.trips).toBe(1);
    expect([await count('conversations'), await count('contacts')]).toEqual([conversations, contacts]);
  });

  it("the widget's: its form looked up, then one exchange; a customer's address given is asked for proof after, by the drain", async () => {
    const started = await start({ contact: { name: 'Mallory', email: customerEmail } }, form);
    expect(started.answer.status, started.answer.text).toBe(201);
    expect(started.trips).toBe(2);
    const contactId = started.answer.body.conversation.contactId as number;
    await drained(site.id, 5_000);
    const [contact] = await rows<{ customer_id: number | null; email_token_hash: string | null }>(
      'SELECT customer_id, email_token_hash FROM contacts WHERE id = $1',
      [contactId],
    );
    expect(contact!.customer_id).toBeNull();
    expect(contact!.email_token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(
      await rows(`SELECT kind FROM outbound_mails WHERE installation_id = $1 AND kind = 'verification'`, [site.id]),
    ).toHaveLength(1);
  });
});

describe("a conversation's update", () => {
  it('is one exchange; closed unanswered, it becomes a ticket right after, by the drain', async () => {
    const conversation = (await start({ contact: { name: 'Una', email: 'una@chat-trips.test' } })).answer.body
      .conversation;
    const renamed = await counted(`/v2/conversations/${conversation.id}.json`, {
      method: 'PATCH',
      key: agent,
      body: { conversation: { subject: 'Renamed' } },
    });
    expect(renamed.answer.status, renamed.answer.text).toBe(200);
    expect(renamed.trips).toBe(1);
    expect(renamed.answer.body.conversation.subject).toBe('Renamed');

    await postSigned({ conversationmessage: fromContact(conversation, 'Anyone there?') });
    const closed = await counted(`/v2/conversations/${conversation.id}.json`, {
      method: 'PATCH',
      key: agent,
      body: { conversation: { status: 'closed' } },
    });
    expect(closed.answer.status, closed.answer.text).toBe(200);
    expect(closed.trips).toBe(1);
    expect(closed.answer.body.conversation.status).toBe('closed');
    await drained(site.id, 5_000);
    const [linked] = await rows<{ ticket_id: number | null }>('SELECT ticket_id FROM conversations WHERE id = $1', [
      conversation.id,
    ]);
    expect(linked!.ticket_id).toEqual(expect.any(Number));
    const [ticket] = await rows<{ created_by: number | null }>('SELECT created_by FROM tickets WHERE id = $1', [
      linked!.ticket_id,
    ]);
    expect(ticket).toEqual({ created_by: site.users.agent.id });
  });
});

describe('a chat made a ticket', () => {
  it('is its transcript read, then one exchange: the ticket with its customer made by email, the thread in order, the conversation linked', async () => {
    const conversation = (
      await start({ contact: { name: 'Vera', email: `vera.${Date.now().toString(36)}@chat-trips.test` } })
    ).answer.body.conversation;
    await postSigned({
      conversationmessages: [
        fromContact(conversation, 'My order is late'),
        fromAgent(conversation, site.users.agent.id, 'Let me check'),
      ],
    });
    const mark = await lastEventId(site.id);
    const made = await counted(`/v2/conversations/${conversation.id}/ticket.json`, { method: 'POST', key: agent });
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(2);
    const ticket = made.answer.body.ticket;
    expect(ticket).toMatchObject({
      subject: 'Chat with Vera',
      inbox: { id: inbox },
      messageCount: 2,
      previewText: 'Let me check',
    });
    const thread = await rows<{
      thread_type: string;
      customer_id: number | null;
      created_by: number | null;
      text_body: string;
    }>(
      'SELECT thread_type, customer_id, created_by, text_body FROM ticket_messages WHERE ticket_id = $1 ORDER BY created_at, id',
      [ticket.id],
    );
    expect(thread).toEqual([
      { thread_type: 'message', customer_id: ticket.customer.id, created_by: null, text_body: 'My order is late' },
      { thread_type: 'message', customer_id: null, created_by: site.users.agent.id, text_body: 'Let me check' },
    ]);
    expect(await rows('SELECT ticket_id FROM conversations WHERE id = $1', [conversation.id])).toEqual([
      { ticket_id: ticket.id },
    ]);
    expect(summary(await eventsSince(site.id, mark))).toEqual(
      expect.arrayContaining(['customers:created', 'tickets:created', 'messages:created', 'conversations:updated']),
    );
    // its events reach their subscribers (the ticket's history) without the cron
    await drained(site.id, 5_000);
    expect(
      (await api('/v2/search/tickets.json', { key: agent, query: { search: 'order late' } })).body.tickets.map(
        (t: { id: number }) => t.id,
      ),
    ).toEqual([ticket.id]);

    const twice = await counted(`/v2/conversations/${conversation.id}/ticket.json`, { method: 'POST', key: agent });
    expect(twice.answer.status).toBe(409);
    expect(twice.answer.body.errors).toEqual([
      { code: 'conflict', source: 'id', detail: `conversation ${conversation.id} is ticket ${ticket.id} already` },
    ]);
    expect(twice.trips).toBe(1);
  });

  it("refuses in its read, writing nothing: another installation's conversation (404), a contact with no email (409)", async () => {
    const theirs = (
      await api('/v2/conversations.json', {
        method: 'POST',
        key: other.users.agent.apiKey,
        body: { conversation: { contact: { name: 'Theirs', email: 'theirs@chat-trips.test' } } },
      })
    ).body.conversation.id as number;
    const tickets = await count('tickets');
    const foreign = await counted(`/v2/conversations/${theirs}/ticket.json`, { method: 'POST', key: agent });
    expect(foreign.answer.status).toBe(404);
    expect(foreign.answer.body.errors).toEqual([
      { code: 'notFound', source: 'id', detail: `conversation ${theirs} not found` },
    ]);
    expect(foreign.trips).toBe(1);
    const anonymous = (await start({ contact: { name: 'Nobody' } })).answer.body.conversation.id as number;
    const refused = await counted(`/v2/conversations/${anonymous}/ticket.json`, { method: 'POST', key: agent });
    expect(refused.answer.status).toBe(409);
    expect(refused.answer.body.errors).toEqual([
      { code: 'conflict', source: 'id', detail: 'the contact left no email: a ticket needs a customer to answer' },
    ]);
    expect(refused.trips).toBe(1);
    expect(await count('tickets')).toBe(tickets);
  });
});

describe("a visitor's email proof confirmed", () => {
  it('is one exchange, its event drained at once; a link that works no more is the same 404 page, in one exchange too', async () => {
    const conversation = (await start({ contact: { name: 'Proving', email: customerEmail } }, form)).answer.body
      .conversation;
    await drained(site.id);
    const token = `hdv_${randomBytes(30)
      .toString('base64')
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, 40)
      .padEnd(40, 'x')}`;
    await rows('UPDATE contacts SET email_token_hash = $2 WHERE id = $1', [
      conversation.contactId,
      createHash('sha256').update(token).digest('hex'),
    ]);
    const confirm = async () => {
      const requestId = `proof-${Math.random().toString(36).slice(2)}`;
      const answer = await checkedFetch(`${inject('workerUrl')}/v2/contacts/verify/${token}`, {
        method: 'POST',
        headers: { 'x-request-id': requestId },
      });
      const [line] = await awaitLogLines({ requestId });
      return { status: answer.status, trips: line!.dbRoundTrips as number };
    };
    const mark = await lastEventId(site.id);
    expect(await confirm()).toEqual({ status: 200, trips: 1 });
    expect(
      await rows('SELECT customer_id, email_token_hash FROM contacts WHERE id = $1', [conversation.contactId]),
    ).toEqual([{ customer_id: customer, email_token_hash: null }]);
    expect(
      (await eventsSince(site.id, mark)).map((event) => [event.recordType, event.kind, event.actorSystem]),
    ).toEqual([['contacts', 'updated', 'widget']]);
    await drained(site.id, 5_000);
    expect(await confirm()).toEqual({ status: 404, trips: 1 });
  });
});
