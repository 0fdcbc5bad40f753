// Conversations over HTTP: starting one (an agent's key, or a live-chat contact form's token),
// the list contract of part 2 (every filter name, orderBy, includes), GET by id, and PATCH,
// including what a closed conversation does to its room. Refusals are in bad-input.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { joinRoom, type RoomClient } from '../support/room';

let site: SeededInstallation;
let other: SeededInstallation;
let agentKey: string;
const ids = { inbox: 0, customer: 0, otherCustomer: 0, deletedCustomer: 0 };
const sockets: RoomClient[] = [];

const LIST = '/v2/conversations.json';
const one = (id: number) => `/v2/conversations/${id}.json`;
const TOKEN = /^\d{24}$/;

async function start(conversation: Record<string, unknown>, key = agentKey) {
  const response = await api(LIST, { method: 'POST', key, body: { conversation } });
  expect(response.status, response.text).toBe(201);
  return response.body.conversation;
}

async function join(socketUrl: string, key?: string) {
  const client = await joinRoom(socketUrl, key);
  sockets.push(client);
  await client.next('welcome');
  return client;
}

async function list(query: Record<string, string | number | object>, key = agentKey) {
  const response = await api(LIST, { key, query });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

const listedIds = (body: { conversations: { id: number }[] }) => body.conversations.map((c) => c.id);

beforeAll(async () => {
  site = await newInstallation('conv-api');
  other = await newInstallation('conv-api-other');
  agentKey = site.users.agent.apiKey;
  const [inbox] = await rows<{ id: number }>(
    `INSERT INTO inboxes (installation_id, name) VALUES ($1, 'Chat') RETURNING id`,
    [site.id],
  );
  ids.inbox = inbox!.id;
  const customers = await rows<{ id: number }>(
    `INSERT INTO customers (installation_id, first_name, last_name, email, state)
     VALUES ($1, 'Ada', 'Lovelace', 'Ada.Lovelace@Example.com', 'active'),
            ($2, 'Ada', 'Elsewhere', 'ada.lovelace@example.com', 'active'),
            ($1, 'Old', 'Ada', 'old.ada@example.com', 'deleted')
     RETURNING id`,
    [site.id, other.id],
  );
  ids.customer = customers[0]!.id;
  ids.otherCustomer = customers[1]!.id;
  ids.deletedCustomer = customers[2]!.id;
  // an address names a customer through its email contacts, as the API writes them beside the customer
  await rows(
    `INSERT INTO customer_contacts (installation_id, customer_id, type, value, is_main, state)
     SELECT installation_id, id, 'email', email, true, state FROM customers WHERE id = ANY($1)`,
    [[ids.customer, ids.otherCustomer, ids.deletedCustomer]],
  );
});

afterAll(async () => {
  await Promise.all(sockets.map((socket) => socket.close()));
});

describe('POST /v2/conversations.json with an agent key', () => {
  it('answers 201 with the record, a 24-digit token and the room address; the contact is created and linked to the customer of its email', async () => {
    const response = await api(LIST, {
      method: 'POST',
      key: agentKey,
      body: {
        conversation: {
          contact: { name: 'Ada Lovelace', email: 'ada.lovelace@example.com' },
          subject: '  Late order  ',
          inbox: ids.inbox,
        },
      },
    });
    expect(response.status, response.text).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(['conversation', 'included']);
    const conversation = response.body.conversation;
    expect(conversation).toMatchObject({
      type: 'conversations',
      subject: 'Late order',
      status: 'open',
      inbox: { id: ids.inbox, type: 'inboxes' },
      ticket_id: null,
      contactForm: null,
      lastMessageAt: null,
      state: 'active',
      createdBy: { id: site.users.agent.id, type: 'users' },
      updatedBy: { id: site.users.agent.id, type: 'users' },
    });
    expect(conversation.token).toMatch(TOKEN);
    const host = new URL(inject('workerUrl')).host;
    expect(conversation.socketUrl).toBe(`ws://${host}/v2/rooms/${conversation.token}/socket`);
    expect(conversation.socketId).toMatch(/^[0-9a-f]{64}$/);

    const [row] = await rows(
      `SELECT installation_id, token, contact_id, inbox_id, contact_form_id, subject, status, created_by FROM conversations WHERE id = $1`,
      [conversation.id],
    );
    expect(row).toEqual({
      installation_id: site.id,
      token: conversation.token,
      contact_id: conversation.contactId,
      inbox_id: ids.inbox,
      contact_form_id: null,
      subject: 'Late order',
      status: 'open',
      created_by: site.users.agent.id,
    });
    const [contact] = await rows(
      `SELECT installation_id, name, email, customer_id, state FROM contacts WHERE id = $1`,
      [conversation.contactId],
    );
    // Linked to this installation's live customer of that email, whatever its case; not to another installation's.
    expect(contact).toEqual({
      installation_id: site.id,
      name: 'Ada Lovelace',
      email: 'ada.lovelace@example.com',
      customer_id: ids.customer,
      state: 'active',
    });

    const read = await api(one(conversation.id), { key: agentKey, query: { includes: 'contacts,customers' } });
    expect(read.status, read.text).toBe(200);
    // References the record already carries (contactId) are not repeated on it: the records come in `included`.
    expect(read.body.conversation).not.toHaveProperty('customers');
    expect(read.body.included.customers).toEqual([
      expect.objectContaining({ id: ids.customer, email: 'Ada.Lovelace@Example.com', firstName: 'Ada' }),
    ]);
    expect(read.body.included.contacts).toEqual([
      expect.objectContaining({
        id: conversation.contactId,
        name: 'Ada Lovelace',
        customer: { id: ids.customer, type: 'customers' },
      }),
    ]);
    // The room address is on the create response only.
    expect(read.body.conversation).not.toHaveProperty('socketUrl');
    expect(read.body.conversation).not.toHaveProperty('socketId');
    expect(read.body.conversation.token).toBe(conversation.token);
  });

  it('links no customer when none has the email, nor a deleted one, and takes a contact without email', async () => {
    const stranger = await start({ contact: { name: 'Stranger', email: 'nobody@example.com' } });
    const gone = await start({ contact: { name: 'Old Ada', email: 'old.ada@example.com' } });
    const anonymous = await start({ contact: { name: 'Anon' } });
    const found = await rows<{ id: number; email: string | null; customer_id: number | null }>(
      `SELECT id, email, customer_id FROM contacts WHERE id = ANY($1) ORDER BY id`,
      [[stranger.contactId, gone.contactId, anonymous.contactId]],
    );
    expect(found).toEqual([
      { id: stranger.contactId, email: 'nobody@example.com', customer_id: null },
      { id: gone.contactId, email: 'old.ada@example.com', customer_id: null },
      { id: anonymous.contactId, email: null, customer_id: null },
    ]);
    expect(new Set([stranger.token, gone.token, anonymous.token]).size).toBe(3);
  });

  it('starts a conversation with an existing contact by contactId, creating no contact; a bare body works too', async () => {
    const first = await start({ contact: { name: 'Returning' } });
    const [before] = await rows<{ n: number }>(`SELECT count(*)::int AS n FROM contacts WHERE installation_id = $1`, [
      site.id,
    ]);
    const response = await api(LIST, {
      method: 'POST',
      key: site.users.owner.apiKey,
      body: { contactId: first.contactId },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.conversation).toMatchObject({
      contactId: first.contactId,
      createdBy: { id: site.users.owner.id, type: 'users' },
    });
    expect(response.body.conversation.token).not.toBe(first.token);
    const [after] = await rows<{ n: number }>(`SELECT count(*)::int AS n FROM contacts WHERE installation_id = $1`, [
      site.id,
    ]);
    expect(after!.n).toBe(before!.n);
  });

  it('ignores the read-only properties a client sends back (token, status, socketUrl, the audit set)', async () => {
    const conversation = await start({
      contact: { name: 'Echo' },
      token: '000000000000000000000000',
      status: 'closed',
      socketUrl: 'ws://elsewhere',
      socketId: 'abc',
      lastMessageAt: null,
      createdAt: '2020-01-01T00:00:00.000Z',
      state: 'deleted',
    });
    expect(conversation.token).not.toBe('000000000000000000000000');
    expect(conversation.status).toBe('open');
    expect(conversation.state).toBe('active');
    expect(conversation.createdAt).not.toBe('2020-01-01T00:00:00.000Z');
  });

  it("ignores id and type sent back, and included/meta beside the wrapper, like every other resource's create (docs/api-conventions.md)", async () => {
    const response = await api(LIST, {
      method: 'POST',
      key: agentKey,
      body: { conversation: { contact: { name: 'Echo' }, id: 1, type: 'conversations' }, included: {}, meta: {} },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.conversation.id).not.toBe(1);
  });

  it('ignores id, type, included and meta inside a bare body an SDK sends back', async () => {
    const response = await api(LIST, {
      method: 'POST',
      key: agentKey,
      body: { contact: { name: 'Bare' }, id: 1, type: 'conversations', included: {}, meta: {} },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.conversation.id).not.toBe(1);
  });
});

describe('POST /v2/conversations.json from the chat widget (a contact form token)', () => {
  it('answers 201 when the form has live chat: the conversation records the form and lands in its inbox', async () => {
    const form = await api('/v2/contactforms.json', {
      method: 'POST',
      key: site.users.admin.apiKey,
      body: { contactform: { name: 'Website chat', isLiveChatEnabled: true, inbox: ids.inbox } },
    });
    expect(form.status, form.text).toBe(201);
    const { id: formId, token: formToken } = form.body.contactform;

    const response = await api(LIST, {
      method: 'POST',
      key: formToken,
      body: { conversation: { contact: { name: 'Visitor', email: 'ADA.lovelace@example.com' }, subject: 'Hi' } },
    });
    expect(response.status, response.text).toBe(201);
    const conversation = response.body.conversation;
    expect(conversation).toMatchObject({
      contactForm: { id: formId, type: 'contactforms' },
      inbox: { id: ids.inbox, type: 'inboxes' },
      subject: 'Hi',
      status: 'open',
      createdBy: null,
    });
    expect(conversation.token).toMatch(TOKEN);
    expect(conversation.socketUrl).toMatch(new RegExp(`/v2/rooms/${conversation.token}/socket$`));
    const [row] = await rows(`SELECT installation_id, contact_form_id, inbox_id FROM conversations WHERE id = $1`, [
      conversation.id,
    ]);
    expect(row).toEqual({ installation_id: site.id, contact_form_id: formId, inbox_id: ids.inbox });
    // the visitor's word is not proof: linked to the customer of that email only once they follow the link mailed to it (visitor-email-proof.test.ts)
    const [contact] = await rows(`SELECT installation_id, customer_id FROM contacts WHERE id = $1`, [
      conversation.contactId,
    ]);
    expect(contact).toEqual({ installation_id: site.id, customer_id: null });

    // The agents of the installation see it; the visitor joins its room with the token alone.
    const read = await api(one(conversation.id), { key: agentKey });
    expect(read.status).toBe(200);
    const visitor = await joinRoom(conversation.socketUrl);
    sockets.push(visitor);
    expect((await visitor.next('welcome')).you).toMatchObject({
      role: 'contact',
      id: conversation.contactId,
      name: 'Visitor',
    });
  });
});

describe('GET /v2/conversations.json and /v2/conversations/{id}.json', () => {
  let lister: SeededInstallation;
  let key: string;
  const c = { a: undefined as any, b: undefined as any, c: undefined as any, deleted: undefined as any };

  beforeAll(async () => {
    // An installation of its own, so the lists hold exactly these.
    lister = await newInstallation('conv-list');
    key = lister.users.agent.apiKey;
    c.a = await start({ contact: { name: 'Alpha' }, subject: 'first' }, key);
    c.b = await start({ contact: { name: 'Bravo' }, subject: 'second' }, key);
    c.c = await start({ contactId: c.a.contactId, subject: 'third' }, key);
    c.deleted = await start({ contact: { name: 'Gone' } }, key);
    await rows(`UPDATE conversations SET state = 'deleted', deleted_at = now() WHERE id = $1`, [c.deleted.id]);
    const patched = await api(one(c.b.id), { method: 'PATCH', key, body: { conversation: { ticket_id: 4242 } } });
    expect(patched.status, patched.text).toBe(200);
    c.b = patched.body.conversation;
    await start({ contact: { name: 'Theirs' } }, other.users.agent.apiKey);
  });

  it("lists the live conversations of the caller's installation by id, with paging metadata", async () => {
    const body = await list({}, key);
    expect(listedIds(body)).toEqual([c.a.id, c.b.id, c.c.id]);
    expect(body.meta.page).toEqual({ page: 1, pageSize: 50, pageOffset: 0, count: 3, pages: 1, hasMore: false });
    expect(body.included).toEqual({});
    expect(body.conversations[0]).toMatchObject({
      type: 'conversations',
      subject: 'first',
      token: c.a.token,
      contactId: c.a.contactId,
    });
    // A collaborator reads too.
    expect(listedIds(await list({}, lister.users.collaborator.apiKey))).toEqual([c.a.id, c.b.id, c.c.id]);
  });

  it('filters by every name of part 2', async () => {
    expect(listedIds(await list({ filter: { contactId: c.a.contactId } }, key))).toEqual([c.a.id, c.c.id]);
    expect(listedIds(await list({ filter: { id: { $in: [c.b.id, c.c.id, c.deleted.id] } } }, key))).toEqual([
      c.b.id,
      c.c.id,
    ]);
    expect(listedIds(await list({ filter: { ticket_id: 4242 } }, key))).toEqual([c.b.id]);
    expect(listedIds(await list({ filter: { ticket_id: null } }, key))).toEqual([c.a.id, c.c.id]);
    expect(listedIds(await list({ filter: { token: c.c.token } }, key))).toEqual([c.c.id]);
    expect(listedIds(await list({ filter: { state: 'deleted' } }, key))).toEqual([c.deleted.id]);
    expect(
      listedIds(
        await list(
          { filter: { state: 'deleted', deletedAt: { $lte: new Date(Date.now() + 60_000).toISOString() } } },
          key,
        ),
      ),
    ).toEqual([c.deleted.id]);
    expect(listedIds(await list({ filter: { state: 'active', deletedAt: null } }, key))).toEqual([
      c.a.id,
      c.b.id,
      c.c.id,
    ]);
    expect(c.a.createdAt < c.b.createdAt).toBe(true);
    expect(listedIds(await list({ filter: { createdAt: { $gte: c.b.createdAt } } }, key))).toEqual([c.b.id, c.c.id]);
    expect(listedIds(await list({ filter: { createdAt: { $lt: '2000-01-01T00:00:00Z' } } }, key))).toEqual([]);
    // b was patched after every other was created.
    expect(listedIds(await list({ filter: { updatedAt: { $gte: c.b.updatedAt } } }, key))).toEqual([c.b.id]);
    expect(listedIds(await list({ filter: { $or: [{ token: c.a.token }, { ticket_id: 4242 }] } }, key))).toEqual([
      c.a.id,
      c.b.id,
    ]);
  });

  it("never lists another installation's conversation, even by its token", async () => {
    const theirs = await start({ contact: { name: 'Hidden' } }, other.users.agent.apiKey);
    expect(listedIds(await list({ filter: { token: theirs.token } }, key))).toEqual([]);
    expect(listedIds(await list({ filter: { id: theirs.id } }, key))).toEqual([]);
  });

  it('orders by the allowed names, ties on id', async () => {
    expect(listedIds(await list({ orderBy: 'id', orderMode: 'desc' }, key))).toEqual([c.c.id, c.b.id, c.a.id]);
    expect(listedIds(await list({ orderBy: 'updatedAt', orderMode: 'desc' }, key))[0]).toBe(c.b.id);
    expect(listedIds(await list({ orderBy: 'contactId' }, key))).toEqual(
      [c.a, c.b, c.c].sort((x, y) => x.contactId - y.contactId || x.id - y.id).map((x) => x.id),
    );
    // Without a ticket sorts last when ascending; the tie between them breaks on id.
    expect(listedIds(await list({ orderBy: 'ticket_id' }, key))).toEqual([c.b.id, c.a.id, c.c.id]);
    expect(listedIds(await list({ orderBy: 'token' }, key))).toEqual(
      [c.a, c.b, c.c].sort((x, y) => (x.token < y.token ? -1 : 1)).map((x) => x.id),
    );
    const page = await list({ pageSize: 2, page: 2 }, key);
    expect(listedIds(page)).toEqual([c.c.id]);
    expect(page.meta.page).toEqual({ page: 2, pageSize: 2, pageOffset: 2, count: 3, pages: 2, hasMore: false });
  });

  it('includes contacts, customers, conversationmessages and users, or all', async () => {
    const [customer] = await rows<{ id: number }>(
      `INSERT INTO customers (installation_id, first_name, email) VALUES ($1, 'Cara', 'cara@example.com') RETURNING id`,
      [lister.id],
    );
    await rows(
      `INSERT INTO customer_contacts (installation_id, customer_id, type, value, is_main) VALUES ($1, $2, 'email', 'cara@example.com', true)`,
      [lister.id, customer!.id],
    );
    const linked = await start({ contact: { name: 'Cara', email: 'cara@example.com' } }, key);

    const contactsOnly = await api(one(linked.id), { key, query: { includes: 'contacts' } });
    expect(contactsOnly.status).toBe(200);
    expect(Object.keys(contactsOnly.body.included)).toEqual(['contacts']);
    expect(contactsOnly.body.included.contacts[0]).toMatchObject({
      id: linked.contactId,
      name: 'Cara',
      email: 'cara@example.com',
      customer: { id: customer!.id, type: 'customers' },
    });
    expect(contactsOnly.body.conversation).not.toHaveProperty('customers');

    const customers = await api(one(linked.id), { key, query: { includes: 'customers' } });
    expect(Object.keys(customers.body.included)).toEqual(['customers']);
    expect(customers.body.included.customers).toEqual([
      expect.objectContaining({ id: customer!.id, type: 'customers', firstName: 'Cara' }),
    ]);

    const users = await api(one(linked.id), { key, query: { includes: 'users' } });
    expect(users.body.included.users).toEqual([
      expect.objectContaining({ id: lister.users.agent.id, type: 'users', role: 'agent' }),
    ]);

    const messages = await api(one(linked.id), { key, query: { includes: 'conversationmessages' } });
    expect(messages.body.conversation.conversationmessages).toEqual([]);

    const all = await api(LIST, { key, query: { includes: 'all', filter: { id: linked.id } } });
    expect(all.status, all.text).toBe(200);
    expect(all.body.conversations[0].conversationmessages).toEqual([]);
    expect(all.body.included).toEqual({
      contacts: [expect.objectContaining({ id: linked.contactId })],
      conversationmessages: [],
      customers: [expect.objectContaining({ id: customer!.id })],
      users: [expect.objectContaining({ id: lister.users.agent.id })],
    });
  });

  it("reads one by id, and another installation's or a deleted one as 404", async () => {
    const read = await api(one(c.a.id), { key });
    expect(read.status).toBe(200);
    expect(read.body.conversation).toMatchObject({ id: c.a.id, token: c.a.token, subject: 'first' });
    expect(read.body.included).toEqual({});
    const theirs = await start({ contact: { name: 'Other' } }, other.users.agent.apiKey);
    expectError(await api(one(theirs.id), { key }), 404, 'id');
    expectError(await api(one(c.deleted.id), { key }), 404, 'id');
    expectError(await api(one(2_000_000_000), { key }), 404, 'id');
  });
});

describe('PATCH /v2/conversations/{id}.json', () => {
  it('changes subject and ticket_id, answering the record; PUT means PATCH', async () => {
    const conversation = await start({ contact: { name: 'Patchy' }, subject: 'before' });
    const response = await api(one(conversation.id), {
      method: 'PATCH',
      key: site.users.admin.apiKey,
      body: { conversation: { subject: 'after', ticket_id: 77 } },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.conversation).toMatchObject({
      id: conversation.id,
      subject: 'after',
      ticket_id: 77,
      status: 'open',
      token: conversation.token,
      updatedBy: { id: site.users.admin.id, type: 'users' },
    });
    const [row] = await rows(`SELECT subject, ticket_id, status, updated_by FROM conversations WHERE id = $1`, [
      conversation.id,
    ]);
    expect(row).toEqual({ subject: 'after', ticket_id: 77, status: 'open', updated_by: site.users.admin.id });

    const put = await api(one(conversation.id), {
      method: 'PUT',
      key: agentKey,
      body: { subject: null, ticket_id: null },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.conversation).toMatchObject({ subject: null, ticket_id: null });
    const [cleared] = await rows(`SELECT subject, ticket_id FROM conversations WHERE id = $1`, [conversation.id]);
    expect(cleared).toEqual({ subject: null, ticket_id: null });
  });

  it('ignores the read-only token, as the engine ignores every computed property: 200 and the token unchanged', async () => {
    const conversation = await start({ contact: { name: 'Tok' } });
    const response = await api(one(conversation.id), {
      method: 'PATCH',
      key: agentKey,
      body: {
        conversation: {
          token: '111111111111111111111111',
          contactForm: 5,
          lastMessageAt: '2020-01-01T00:00:00Z',
          subject: 'kept',
        },
      },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.conversation).toMatchObject({
      token: conversation.token,
      subject: 'kept',
      contactForm: null,
      lastMessageAt: null,
    });
    const [row] = await rows(`SELECT token FROM conversations WHERE id = $1`, [conversation.id]);
    expect(row).toEqual({ token: conversation.token });
    // The room still answers to the old token; nothing answers to the one sent.
    expectError(await api('/v2/conversationmessages/history/111111111111111111111111.json'), 404);
    expect((await api(`/v2/conversationmessages/history/${conversation.token}.json`)).status).toBe(200);
  });

  it('moves the conversation to another contact of the installation', async () => {
    const first = await start({ contact: { name: 'One' } });
    const second = await start({ contact: { name: 'Two' } });
    const response = await api(one(first.id), {
      method: 'PATCH',
      key: agentKey,
      body: { conversation: { contactId: second.contactId } },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.conversation.contactId).toBe(second.contactId);
  });

  it('closing tells a joined room at once: a status frame, then messages are refused with conversation_closed; reopening takes them again', async () => {
    const conversation = await start({ contact: { name: 'Closer' } });
    const contact = await join(conversation.socketUrl);
    const agent = await join(conversation.socketUrl, agentKey);
    await contact.next('presence');

    const closed = await api(one(conversation.id), {
      method: 'PATCH',
      key: agentKey,
      body: { conversation: { status: 'closed' } },
    });
    expect(closed.status, closed.text).toBe(200);
    expect(closed.body.conversation.status).toBe('closed');
    expect(await contact.next('status')).toEqual({ type: 'status', status: 'closed' });
    expect(await agent.next('status')).toEqual({ type: 'status', status: 'closed' });
    const [row] = await rows(`SELECT status FROM conversations WHERE id = $1`, [conversation.id]);
    expect(row).toEqual({ status: 'closed' });

    contact.send({ type: 'message', message: 'Still there?', clientId: 'late-1' });
    expect(await contact.next('error')).toMatchObject({
      type: 'error',
      code: 'conversation_closed',
      clientId: 'late-1',
    });
    agent.send({ type: 'message', message: 'One more thing', clientId: 'late-2' });
    expect(await agent.next('error')).toMatchObject({ code: 'conversation_closed', clientId: 'late-2' });

    // A newcomer learns the conversation is closed from the welcome.
    const late = await join(conversation.socketUrl);
    expect(late.frames[0]).toMatchObject({ type: 'welcome', conversation: { id: conversation.id, status: 'closed' } });

    const reopened = await api(one(conversation.id), { method: 'PATCH', key: agentKey, body: { status: 'open' } });
    expect(reopened.status, reopened.text).toBe(200);
    expect(await contact.next('status')).toEqual({ type: 'status', status: 'open' });
    contact.send({ type: 'message', message: 'Back again', clientId: 'again-1' });
    expect(await agent.next('message')).toMatchObject({
      message: 'Back again',
      clientId: 'again-1',
      author: { type: 'contact', id: conversation.contactId },
    });
    // No message of the closed time was broadcast.
    expect(agent.frames.filter((frame) => frame.type === 'message').map((frame) => frame.clientId)).toEqual([
      'again-1',
    ]);
  });

  it('closing a conversation nobody has joined yet: the first to join finds it closed', async () => {
    const conversation = await start({ contact: { name: 'Quiet' } });
    const closed = await api(one(conversation.id), { method: 'PATCH', key: agentKey, body: { status: 'closed' } });
    expect(closed.status, closed.text).toBe(200);
    const contact = await join(conversation.socketUrl);
    expect(contact.frames[0]!.conversation.status).toBe('closed');
    contact.send({ type: 'message', message: 'hello?' });
    expect(await contact.next('error')).toMatchObject({ code: 'conversation_closed' });
  });
});
