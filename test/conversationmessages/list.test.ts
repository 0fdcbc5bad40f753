// GET /v2/conversationmessages.json: the list contract of part 2 (every filter and orderBy
// name, includes, paging), tenancy, bad parameters; and the absence of a GET by id (the spec has
// none). The messages arrive as the rooms deliver them: signed webhook deliveries, and one said
// in a real room.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import {
  fromAgent,
  fromContact,
  listedIds,
  MESSAGES,
  messagePath,
  newRoomId,
  startConversation,
  deliverOne,
  type MessageRecord,
  type StartedConversation,
} from '../support/conversation-messages';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { eventually, joinRoom, type RoomClient } from '../support/room';

let site: SeededInstallation;
let other: SeededInstallation;
let key: string;
let customerId: number;
let fileId: number;
const conv = {} as Record<'ada' | 'bo' | 'theirs', StartedConversation>;
/** ada, agent, room: conversation ada; bo, admin, ai: conversation bo; gone: deleted; theirs: the other installation's */
const m = {} as Record<'ada' | 'agent' | 'bo' | 'admin' | 'ai' | 'gone' | 'room' | 'theirs', MessageRecord>;
const sockets: RoomClient[] = [];

async function list(query: Record<string, string | number | object>, as = key) {
  const response = await api(MESSAGES, { key: as, query });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

const ids = async (query: Record<string, string | number | object>) => listedIds(await list(query));
const idsOf = (...names: (keyof typeof m)[]) => names.map((name) => m[name].id);

beforeAll(async () => {
  site = await newInstallation('msg-list');
  other = await newInstallation('msg-list-other');
  key = site.users.agent.apiKey;
  const [customer] = await rows<{ id: number }>(
    `INSERT INTO customers (installation_id, first_name, email) VALUES ($1, 'Ada', 'ada@example.com') RETURNING id`,
    [site.id],
  );
  customerId = customer!.id;
  // an address names a customer through its email contacts, as the API writes them beside the customer
  await rows(
    `INSERT INTO customer_contacts (installation_id, customer_id, type, value, is_main) VALUES ($1, $2, 'email', 'ada@example.com', true)`,
    [site.id, customerId],
  );
  const [file] = await rows<{ id: number }>(
    `INSERT INTO files (installation_id, name, content_type, size, confirmed_at) VALUES ($1, 'receipt.pdf', 'application/pdf', 1234, now()) RETURNING id`,
    [site.id],
  );
  fileId = file!.id;

  conv.ada = await startConversation(key, { name: 'Ada', email: 'ada@example.com' });
  conv.bo = await startConversation(key, { name: 'Bo' });
  conv.theirs = await startConversation(other.users.agent.apiKey, { name: 'Theirs' });

  // One delivery each, so that each message has a createdAt of its own.
  const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 10, minute)).toISOString();
  m.ada = await deliverOne(fromContact(conv.ada, 'Hello, my parcel is late', { sentAt: at(0) }));
  m.agent = await deliverOne(
    fromAgent(conv.ada, site.users.agent.id, 'Sorry! Let me check the parcel.', { sentAt: at(1) }),
  );
  m.bo = await deliverOne(fromContact(conv.bo, 'A billing question', { sentAt: at(2) }));
  m.admin = await deliverOne(fromAgent(conv.bo, site.users.admin.id, 'Happy to help with billing', { sentAt: at(3) }));
  m.ai = await deliverOne({
    conversationToken: conv.bo.token,
    roomId: newRoomId(),
    author: 'ai',
    message: 'I am the billing assistant',
    sentAt: at(4),
  });
  m.gone = await deliverOne(fromAgent(conv.ada, site.users.owner.id, 'Wrong chat, sorry', { sentAt: at(5) }));
  m.theirs = await deliverOne(fromContact(conv.theirs, 'Hello, my parcel is late', { sentAt: at(0) }));

  // Ada says one more thing in the conversation's room; the room delivers it.
  const contact = await joinRoom(conv.ada.socketUrl);
  sockets.push(contact);
  await contact.next('welcome');
  contact.send({ type: 'message', message: 'Are you still there?', clientId: 'ada-1' });
  await contact.next('message');
  m.room = await eventually(
    async () => (await list({ filter: { message: 'Are you still there?' } })).conversationmessages[0],
  );

  // Last of all: the admin attaches a file to the agent's answer, the owner deletes a message.
  const patched = await api(messagePath(m.agent.id), {
    method: 'PATCH',
    key: site.users.admin.apiKey,
    body: { conversationmessage: { files: [{ id: fileId }] } },
  });
  expect(patched.status, patched.text).toBe(200);
  m.agent = patched.body.conversationmessage;
  const deleted = await api(messagePath(m.gone.id), { method: 'DELETE', key: site.users.owner.apiKey });
  expect(deleted.status, deleted.text).toBe(204);
});

afterAll(async () => {
  await Promise.all(sockets.map((socket) => socket.close()));
});

describe('GET /v2/conversationmessages.json', () => {
  it("lists the live messages of the caller's installation by id, with paging metadata and empty included", async () => {
    const body = await list({});
    expect(Object.keys(body).sort()).toEqual(['conversationmessages', 'included', 'meta', 'pagination']);
    expect(listedIds(body)).toEqual(idsOf('ada', 'agent', 'bo', 'admin', 'ai', 'room'));
    expect(body.meta.page).toEqual({ page: 1, pageSize: 50, pageOffset: 0, count: 6, pages: 1, hasMore: false });
    expect(body.included).toEqual({});
    expect(body.conversationmessages[0]).toEqual({
      id: m.ada.id,
      type: 'conversationmessages',
      message: 'Hello, my parcel is late',
      conversation: { id: conv.ada.id, type: 'conversations' },
      author: 'contact',
      contactId: conv.ada.contactId,
      userId: null,
      roomId: m.ada.roomId,
      sentAt: '2026-03-01T10:00:00.000Z',
      aiDraft: null,
      aiSimilarity: null,
      state: 'active',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      createdBy: null,
      updatedAt: expect.stringMatching(/Z$/),
      updatedBy: null,
    });
    expect(body.conversationmessages[1]).toMatchObject({
      author: 'agent',
      userId: site.users.agent.id,
      contactId: null,
      createdBy: { id: site.users.agent.id, type: 'users' },
    });
    expect(body.conversationmessages[4]).toMatchObject({
      author: 'ai',
      userId: null,
      contactId: null,
      message: 'I am the billing assistant',
    });
  });

  it("lists the message said in the room as the room recorded it: the contact's, with the room's id for it", async () => {
    expect(m.room).toMatchObject({
      author: 'contact',
      contactId: conv.ada.contactId,
      userId: null,
      conversation: { id: conv.ada.id, type: 'conversations' },
      roomId: expect.stringMatching(/^\S+$/),
    });
    const [row] = await rows(
      `SELECT installation_id, conversation_id, client_id FROM conversation_messages WHERE id = $1`,
      [m.room.id],
    );
    expect(row).toEqual({ installation_id: site.id, conversation_id: conv.ada.id, client_id: m.room.roomId });
  });

  it('pages: pageSize and page, with count, pages and hasMore', async () => {
    const second = await list({ pageSize: 2, page: 2 });
    expect(listedIds(second)).toEqual(idsOf('bo', 'admin'));
    expect(second.meta.page).toEqual({ page: 2, pageSize: 2, pageOffset: 2, count: 6, pages: 3, hasMore: true });
    const last = await list({ pageSize: 4, page: 2 });
    expect(listedIds(last)).toEqual(idsOf('ai', 'room'));
    expect(last.meta.page).toEqual({ page: 2, pageSize: 4, pageOffset: 4, count: 6, pages: 2, hasMore: false });
    const beyond = await list({ pageSize: 4, page: 3 });
    expect(beyond.conversationmessages).toEqual([]);
    expect(beyond.meta.page).toMatchObject({ page: 3, count: 6, hasMore: false });
    expect(listedIds(await list({ pageSize: 100 }))).toHaveLength(6);
  });

  it('lets every role read, the collaborator included', async () => {
    for (const role of ['owner', 'admin', 'collaborator'] as const) {
      expect(listedIds(await list({}, site.users[role].apiKey))).toEqual(
        idsOf('ada', 'agent', 'bo', 'admin', 'ai', 'room'),
      );
    }
  });

  it("never lists another installation's messages, even by id or by their text", async () => {
    expect(await ids({ filter: { id: m.theirs.id } })).toEqual([]);
    expect(await ids({ filter: { message: 'Hello, my parcel is late' } })).toEqual(idsOf('ada'));
    expect(await ids({ filter: { contactId: conv.theirs.contactId } })).toEqual([]);
    const theirs = await list({}, other.users.agent.apiKey);
    expect(listedIds(theirs)).toEqual([m.theirs.id]);
    expect(theirs.meta.page.count).toBe(1);
  });
});

describe('GET /v2/conversationmessages.json: filter by every name of part 2', () => {
  it('id and state (deleted messages only when the filter names state)', async () => {
    expect(await ids({ filter: { id: { $in: idsOf('ada', 'gone', 'theirs') } } })).toEqual(idsOf('ada'));
    expect(await ids({ filter: { id: { $gt: m.ai.id } } })).toEqual(idsOf('room'));
    expect(await ids({ filter: { state: 'deleted' } })).toEqual(idsOf('gone'));
    expect(await ids({ filter: { state: { $in: ['active', 'deleted'] } } })).toEqual(
      idsOf('ada', 'agent', 'bo', 'admin', 'ai', 'gone', 'room'),
    );
  });

  it('createdAt and createdBy (the teammate who wrote it; null for a contact or the AI)', async () => {
    expect(await ids({ filter: { createdAt: { $gte: m.bo.createdAt } } })).toEqual(idsOf('bo', 'admin', 'ai', 'room'));
    expect(await ids({ filter: { createdAt: { $lt: m.agent.createdAt } } })).toEqual(idsOf('ada'));
    expect(await ids({ filter: { createdAt: { $lt: '2000-01-01T00:00:00Z' } } })).toEqual([]);
    expect(await ids({ filter: { createdBy: site.users.agent.id } })).toEqual(idsOf('agent'));
    expect(await ids({ filter: { createdBy: null } })).toEqual(idsOf('ada', 'bo', 'ai', 'room'));
  });

  it('updatedAt and updatedBy', async () => {
    expect(await ids({ filter: { updatedAt: { $gte: m.agent.updatedAt } } })).toEqual(idsOf('agent'));
    expect(await ids({ filter: { updatedBy: site.users.admin.id } })).toEqual(idsOf('agent', 'admin'));
    expect(await ids({ filter: { updatedBy: { $ne: null } } })).toEqual(idsOf('agent', 'admin'));
  });

  it('deletedAt and deletedBy', async () => {
    const soon = new Date(Date.now() + 60_000).toISOString();
    expect(await ids({ filter: { state: 'deleted', deletedAt: { $lte: soon } } })).toEqual(idsOf('gone'));
    expect(await ids({ filter: { deletedAt: { $lte: soon } } })).toEqual([]);
    expect(await ids({ filter: { deletedAt: null } })).toEqual(idsOf('ada', 'agent', 'bo', 'admin', 'ai', 'room'));
    expect(await ids({ filter: { state: 'deleted', deletedBy: site.users.owner.id } })).toEqual(idsOf('gone'));
    expect(await ids({ filter: { state: 'deleted', deletedBy: site.users.agent.id } })).toEqual([]);
  });

  it('contactId, userId and message', async () => {
    expect(await ids({ filter: { contactId: conv.ada.contactId } })).toEqual(idsOf('ada', 'room'));
    expect(await ids({ filter: { contactId: null } })).toEqual(idsOf('agent', 'admin', 'ai'));
    expect(await ids({ filter: { userId: site.users.admin.id } })).toEqual(idsOf('admin'));
    // $ne also matches the messages without a user.
    expect(await ids({ filter: { userId: { $ne: site.users.admin.id } } })).toEqual(
      idsOf('ada', 'agent', 'bo', 'ai', 'room'),
    );
    expect(await ids({ filter: { message: 'A billing question' } })).toEqual(idsOf('bo'));
    expect(await ids({ filter: { message: { $contains: 'BILLING' } } })).toEqual(idsOf('bo', 'admin', 'ai'));
    expect(await ids({ filter: { message: { $contains: '%' } } })).toEqual([]);
    expect(await ids({ filter: { $or: [{ contactId: conv.bo.contactId }, { userId: site.users.agent.id }] } })).toEqual(
      idsOf('agent', 'bo'),
    );
  });
});

describe('GET /v2/conversationmessages.json: orderBy every name', () => {
  it('id, createdAt and updatedAt, ascending and descending', async () => {
    expect(await ids({ orderBy: 'id', orderMode: 'desc' })).toEqual(idsOf('room', 'ai', 'admin', 'bo', 'agent', 'ada'));
    expect(await ids({ orderBy: 'createdAt' })).toEqual(idsOf('ada', 'agent', 'bo', 'admin', 'ai', 'room'));
    expect(await ids({ orderBy: 'createdAt', orderMode: 'desc' })).toEqual(
      idsOf('room', 'ai', 'admin', 'bo', 'agent', 'ada'),
    );
    expect((await ids({ orderBy: 'updatedAt', orderMode: 'desc' }))[0]).toBe(m.agent.id);
  });

  it('message, contactId and userId; without a value sorts last when ascending, ties on id', async () => {
    expect(await ids({ orderBy: 'message' })).toEqual(idsOf('bo', 'room', 'admin', 'ada', 'ai', 'agent'));
    expect(await ids({ orderBy: 'message', orderMode: 'desc' })).toEqual(
      idsOf('agent', 'ai', 'ada', 'admin', 'room', 'bo'),
    );
    expect(conv.ada.contactId).toBeLessThan(conv.bo.contactId);
    expect(await ids({ orderBy: 'contactId' })).toEqual(idsOf('ada', 'room', 'bo', 'agent', 'admin', 'ai'));
    expect(site.users.admin.id).toBeLessThan(site.users.agent.id);
    expect(await ids({ orderBy: 'userId' })).toEqual(idsOf('admin', 'agent', 'ada', 'bo', 'ai', 'room'));
  });

  it('createdBy, updatedBy, state, deletedAt and deletedBy', async () => {
    expect(await ids({ orderBy: 'createdBy' })).toEqual(idsOf('admin', 'agent', 'ada', 'bo', 'ai', 'room'));
    expect(await ids({ orderBy: 'updatedBy' })).toEqual(idsOf('agent', 'admin', 'ada', 'bo', 'ai', 'room'));
    const both = { filter: { state: { $in: ['active', 'deleted'] } } };
    expect(await ids({ ...both, orderBy: 'state' })).toEqual(
      idsOf('ada', 'agent', 'bo', 'admin', 'ai', 'room', 'gone'),
    );
    expect(await ids({ ...both, orderBy: 'state', orderMode: 'desc' })).toEqual(
      idsOf('gone', 'room', 'ai', 'admin', 'bo', 'agent', 'ada'),
    );
    expect(await ids({ ...both, orderBy: 'deletedAt' })).toEqual(
      idsOf('gone', 'ada', 'agent', 'bo', 'admin', 'ai', 'room'),
    );
    expect(await ids({ ...both, orderBy: 'deletedBy' })).toEqual(
      idsOf('gone', 'ada', 'agent', 'bo', 'admin', 'ai', 'room'),
    );
  });
});

describe('GET /v2/conversationmessages.json: includes', () => {
  it('contacts: the contacts who wrote, each once, in included only', async () => {
    const body = await list({ includes: 'contacts' });
    expect(Object.keys(body.included)).toEqual(['contacts']);
    const contacts = [...body.included.contacts].sort((a: { id: number }, b: { id: number }) => a.id - b.id);
    expect(contacts).toEqual([
      expect.objectContaining({
        id: conv.ada.contactId,
        type: 'contacts',
        name: 'Ada',
        email: 'ada@example.com',
        customer: { id: customerId, type: 'customers' },
      }),
      expect.objectContaining({ id: conv.bo.contactId, type: 'contacts', name: 'Bo', email: null, customer: null }),
    ]);
    expect(body.conversationmessages[0]).not.toHaveProperty('contacts');
  });

  it('customers: the customer a contact is linked to', async () => {
    const body = await list({ includes: 'customers', filter: { id: m.ada.id } });
    expect(body.included.customers).toEqual([
      expect.objectContaining({ id: customerId, type: 'customers', firstName: 'Ada', email: 'ada@example.com' }),
    ]);
    expect((await list({ includes: 'customers', filter: { id: m.bo.id } })).included.customers).toEqual([]);
  });

  it('files: references on each message and the files in included', async () => {
    const body = await list({ includes: 'files', filter: { id: { $in: idsOf('ada', 'agent') } } });
    expect(body.conversationmessages.map((record: { files: unknown }) => record.files)).toEqual([
      [],
      [{ id: fileId, type: 'files' }],
    ]);
    expect(body.included.files).toEqual([
      expect.objectContaining({
        id: fileId,
        type: 'files',
        name: 'receipt.pdf',
        contentType: 'application/pdf',
        size: 1234,
      }),
    ]);
  });

  it('users: the author, the creator and the last editor', async () => {
    const body = await list({ includes: 'users', filter: { id: m.agent.id } });
    const users = body.included.users
      .map((user: { id: number; role: string }) => [user.id, user.role])
      .sort((a: number[], b: number[]) => a[0]! - b[0]!);
    expect(users).toEqual([
      [site.users.admin.id, 'admin'],
      [site.users.agent.id, 'agent'],
    ]);
    expect((await list({ includes: 'users', filter: { id: m.ada.id } })).included.users).toEqual([]);
  });

  it('all: every relation', async () => {
    const body = await list({ includes: 'all', filter: { id: m.agent.id } });
    expect(Object.keys(body.included).sort()).toEqual(['contacts', 'customers', 'files', 'users']);
    expect(body.included.contacts).toEqual([]);
    expect(body.included.files).toHaveLength(1);
    expect(body.conversationmessages[0].files).toEqual([{ id: fileId, type: 'files' }]);
  });
});

describe('GET /v2/conversationmessages.json: bad parameters', () => {
  it('a name that is not a filter name of part 2 (even a property the record shows): 400 naming it', async () => {
    const entry = expectError(
      await api(MESSAGES, { key, query: { filter: { author: 'contact' } } }),
      400,
      'filter.author',
    );
    expect(entry.detail).toMatch(/contactId/);
    for (const name of ['conversation', 'roomId', 'sentAt', 'aiDraft', 'aiSimilarity', 'nope']) {
      expectError(await api(MESSAGES, { key, query: { filter: { [name]: 'x' } } }), 400, `filter.${name}`);
    }
    expectError(
      await api(MESSAGES, { key, query: { filter: { $or: [{ userId: 1 }, { author: 'ai' }] } } }),
      400,
      'filter.author',
    );
  });

  it('a value of the wrong type, or a filter that is not JSON: 400', async () => {
    expectError(await api(MESSAGES, { key, query: { filter: { contactId: 'five' } } }), 400, 'filter.contactId');
    expectError(await api(MESSAGES, { key, query: { filter: { userId: { $gt: 'x' } } } }), 400, 'filter.userId');
    expectError(await api(MESSAGES, { key, query: { filter: { createdAt: 'yesterday' } } }), 400, 'filter.createdAt');
    expectError(await api(MESSAGES, { key, query: { filter: { state: 'archived' } } }), 400, 'filter.state');
    expectError(await api(MESSAGES, { key, query: { filter: '{nope' } }), 400, 'filter');
  });

  it('pageSize 101 or 0, page 0, a bad orderBy or orderMode: 400 naming it', async () => {
    expectError(await api(MESSAGES, { key, query: { pageSize: 101 } }), 400, 'pageSize');
    expectError(await api(MESSAGES, { key, query: { pageSize: 0 } }), 400, 'pageSize');
    expectError(await api(MESSAGES, { key, query: { pageSize: 'ten' } }), 400, 'pageSize');
    expectError(await api(MESSAGES, { key, query: { page: 0 } }), 400, 'page');
    expectError(await api(MESSAGES, { key, query: { orderBy: 'sentAt' } }), 400, 'orderBy');
    expectError(await api(MESSAGES, { key, query: { orderBy: 'author' } }), 400, 'orderBy');
    expectError(await api(MESSAGES, { key, query: { orderMode: 'up' } }), 400, 'orderMode');
  });

  it('an unknown include: 400 listing the allowed ones', async () => {
    const entry = expectError(
      await api(MESSAGES, { key, query: { includes: 'contacts,conversations' } }),
      400,
      'includes',
    );
    expect(entry.detail).toMatch(/contacts, customers, files, users, all/);
  });

  it('no credential or a wrong one: 401 with WWW-Authenticate', async () => {
    const response = await api(MESSAGES);
    expectError(response, 401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="helpdesk", Basic realm="helpdesk"');
    expectError(await api(MESSAGES, { key: 'hd_notarealkeynotarealkeynotarealkeynotare' }), 401);
    // A conversation's token is no credential for the API.
    expectError(await api(MESSAGES, { key: conv.ada.token }), 401);
  });
});

describe('GET /v2/conversationmessages/{id}.json', () => {
  it('does not exist (the spec has no GET by id): 404 naming the path, for any id', async () => {
    for (const id of [m.ada.id, m.theirs.id, 'abc']) {
      const entry = expectError(await api(messagePath(id), { key }), 404, 'path');
      expect(entry.detail).toBe(`no route GET /v2/conversationmessages/${id}.json`);
    }
  });

  it('the OpenAPI document declares PATCH, PUT and DELETE on the path, no GET', async () => {
    const document = await api('/v2/openapi.json');
    expect(document.status).toBe(200);
    const paths = document.body.paths as Record<string, Record<string, unknown>>;
    expect(Object.keys(paths['/v2/conversationmessages/{id}.json'] ?? {}).sort()).toEqual(['delete', 'patch', 'put']);
    expect(Object.keys(paths['/v2/conversationmessages.json'] ?? {})).toEqual(['get']);
  });
});
