// Conversations refused: every bad create (credential, role, body, another installation's
// records, the widget's limits), bad list parameters and bad PATCHes. Each refusal answers the
// one error body and leaves every row the endpoints could write as it was.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { refusals } from '../support/refusals';
import { expectIgnored } from '../support/ignored';

let site: SeededInstallation;
let other: SeededInstallation;
let agentKey: string;
const ids = {
  contact: 0,
  otherContact: 0,
  deletedContact: 0,
  inbox: 0,
  otherInbox: 0,
  conversation: 0,
  otherConversation: 0,
};
const forms = { live: '', notLive: '', deleted: '', otherLive: '' };

const LIST = '/v2/conversations.json';
const one = (id: number) => `/v2/conversations/${id}.json`;

/** Every row creating or changing a conversation can write, in both installations. */
async function snapshot() {
  const installations = [site.id, other.id];
  return {
    contacts: await rows(`SELECT to_jsonb(c) AS row FROM contacts c WHERE installation_id = ANY($1) ORDER BY id`, [
      installations,
    ]),
    conversations: await rows(
      `SELECT to_jsonb(c) AS row FROM conversations c WHERE installation_id = ANY($1) ORDER BY id`,
      [installations],
    ),
  };
}

const rejects = refusals(snapshot, () => agentKey);
const post = (body: unknown, extra: { key?: string | null; headers?: Record<string, string> } = {}) => ({
  method: 'POST',
  body,
  ...extra,
});

async function contactForm(
  installation: SeededInstallation,
  record: Record<string, unknown>,
): Promise<{ id: number; token: string }> {
  const response = await api('/v2/contactforms.json', {
    method: 'POST',
    key: installation.users.admin.apiKey,
    body: { contactform: record },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.contactform;
}

beforeAll(async () => {
  site = await newInstallation('conv-bad');
  other = await newInstallation('conv-bad-other');
  agentKey = site.users.agent.apiKey;
  const [contact, deletedContact] = await rows<{ id: number }>(
    `INSERT INTO contacts (installation_id, name, state) VALUES ($1, 'Mine', 'active'), ($1, 'Gone', 'deleted') RETURNING id`,
    [site.id],
  );
  const [otherContact] = await rows<{ id: number }>(
    `INSERT INTO contacts (installation_id, name) VALUES ($1, 'Theirs') RETURNING id`,
    [other.id],
  );
  const [inbox] = await rows<{ id: number }>(
    `INSERT INTO inboxes (installation_id, name) VALUES ($1, 'Mine') RETURNING id`,
    [site.id],
  );
  const [otherInbox] = await rows<{ id: number }>(
    `INSERT INTO inboxes (installation_id, name) VALUES ($1, 'Theirs') RETURNING id`,
    [other.id],
  );
  Object.assign(ids, {
    contact: contact!.id,
    deletedContact: deletedContact!.id,
    otherContact: otherContact!.id,
    inbox: inbox!.id,
    otherInbox: otherInbox!.id,
  });

  forms.live = (await contactForm(site, { name: 'Live', isLiveChatEnabled: true, inbox: ids.inbox })).token;
  forms.notLive = (await contactForm(site, { name: 'Not live', isLiveChatEnabled: false })).token;
  forms.otherLive = (await contactForm(other, { name: 'Theirs live', isLiveChatEnabled: true })).token;
  const deleted = await contactForm(site, { name: 'Deleted', isLiveChatEnabled: true });
  forms.deleted = deleted.token;
  const gone = await api(`/v2/contactforms/${deleted.id}.json`, { method: 'DELETE', key: site.users.admin.apiKey });
  expect(gone.status, gone.text).toBe(204);

  const mine = await api(LIST, { method: 'POST', key: agentKey, body: { contactId: ids.contact } });
  expect(mine.status, mine.text).toBe(201);
  ids.conversation = mine.body.conversation.id;
  const theirs = await api(LIST, {
    method: 'POST',
    key: other.users.agent.apiKey,
    body: { contactId: ids.otherContact },
  });
  expect(theirs.status, theirs.text).toBe(201);
  ids.otherConversation = theirs.body.conversation.id;
});

describe('POST /v2/conversations.json: credentials and roles', () => {
  it('no credential: 401 with WWW-Authenticate', async () => {
    const before = await snapshot();
    const response = await api(LIST, post({ contact: { name: 'X' } }, { key: null }));
    expectError(response, 401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="helpdesk", Basic realm="helpdesk"');
    expect(await snapshot()).toEqual(before);
  });

  it('a credential that is neither a key nor a form token, or a malformed header: 401', async () => {
    const wrong = await rejects(
      LIST,
      post({ contact: { name: 'X' } }, { key: 'hd_notarealkeynotarealkeynotarealkeynotare' }),
      401,
    );
    expect(wrong.detail).toMatch(/not valid/);
    await rejects(
      LIST,
      post({ contact: { name: 'X' } }, { headers: { authorization: `Bearer ${agentKey} extra` } }),
      401,
    );
    await rejects(LIST, post({ contact: { name: 'X' } }, { headers: { authorization: `Token ${agentKey}` } }), 401);
  });

  it('a collaborator: 403', async () => {
    await rejects(LIST, post({ contact: { name: 'X' } }, { key: site.users.collaborator.apiKey }), 403);
  });

  it('a contact form whose live chat is disabled: 403', async () => {
    const entry = await rejects(LIST, post({ contact: { name: 'Visitor' } }, { key: forms.notLive }), 403);
    expect(entry.detail).toMatch(/live chat/);
  });

  it("a deleted contact form's token: 401", async () => {
    await rejects(LIST, post({ contact: { name: 'Visitor' } }, { key: forms.deleted }), 401);
  });

  it('the credential is checked before the body: a bad body without a credential is still 401', async () => {
    await rejects(LIST, post('{not json', { key: null }), 401);
  });
});

describe('POST /v2/conversations.json: the body', () => {
  it('both contact and contactId, or neither: 400 naming the contact', async () => {
    await rejects(
      LIST,
      post({ conversation: { contact: { name: 'Both' }, contactId: ids.contact } }),
      400,
      'conversation.contact',
    );
    await rejects(LIST, post({ conversation: { subject: 'nobody' } }), 400, 'conversation.contact');
    await rejects(LIST, post({}), 400, 'conversation.contact');
  });

  it('an unknown property, at the top, in the contact or beside the wrapper: ignored and named in X-Ignored-Properties, nothing of it stored', async () => {
    const made = await api(LIST, {
      key: agentKey,
      ...post({ conversation: { contact: { name: 'Ignoring Visitor', phone: '123' }, color: 'red' }, extra: 1 }),
    });
    expectIgnored(made, ['conversation.color', 'conversation.contact.phone', 'extra']);
    expect(
      JSON.stringify(
        await rows(
          `SELECT to_jsonb(c) AS row FROM contacts c WHERE installation_id = $1 AND name = 'Ignoring Visitor'`,
          [site.id],
        ),
      ),
    ).not.toMatch(/phone|"123"/);
    // beside a wrong value, an unknown property changes nothing: the 400 names the wrong one
    await rejects(
      LIST,
      post({ conversation: { contact: { name: 5, phone: '123' } } }),
      400,
      'conversation.contact.name',
    );
  });

  it('a bad contact: no name, a blank name, a bad email, a name too long: 400 naming it', async () => {
    await rejects(LIST, post({ contact: { email: 'a@example.com' } }), 400, 'conversation.contact.name');
    await rejects(LIST, post({ contact: { name: '   ' } }), 400, 'conversation.contact.name');
    await rejects(LIST, post({ contact: { name: 'X', email: 'not an email' } }), 400, 'conversation.contact.email');
    await rejects(LIST, post({ contact: { name: 'x'.repeat(256) } }), 400, 'conversation.contact.name');
    await rejects(LIST, post({ contact: { name: 'X\u0000Y' } }), 400, 'conversation.contact.name');
    await rejects(LIST, post({ contact: 'Ada' }), 400, 'conversation.contact');
  });

  it('a bad subject or contactId: 400 naming it', async () => {
    await rejects(LIST, post({ contact: { name: 'X' }, subject: 's'.repeat(256) }), 400, 'conversation.subject');
    await rejects(LIST, post({ contact: { name: 'X' }, subject: 42 }), 400, 'conversation.subject');
    await rejects(LIST, post({ contactId: 'one' }), 400, 'conversation.contactId');
    await rejects(LIST, post({ contactId: 0 }), 400, 'conversation.contactId');
    await rejects(LIST, post({ contactId: 2_147_483_648 }), 400, 'conversation.contactId');
  });

  it('malformed JSON, an empty body, a body that is not an object: 400', async () => {
    await rejects(LIST, post('{"conversation": {'), 400, 'body');
    await rejects(LIST, post(''), 400, 'body');
    await rejects(LIST, post('[1, 2]'), 400, 'body');
    await rejects(LIST, post({ conversation: 'x' }), 400, 'conversation');
  });

  it('a body that is not JSON: 415', async () => {
    await rejects(
      LIST,
      post('contact=Ada', { headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      415,
      'body',
    );
    await rejects(
      LIST,
      post(JSON.stringify({ contact: { name: 'X' } }), { headers: { 'content-type': 'text/plain' } }),
      415,
      'body',
    );
  });

  it("another installation's contactId or inbox, a deleted contact, an unknown inbox: 400 naming it, nothing written", async () => {
    await rejects(LIST, post({ contactId: ids.otherContact }), 400, 'conversation.contactId');
    await rejects(LIST, post({ contactId: ids.deletedContact }), 400, 'conversation.contactId');
    // The new contact is rolled back with the conversation.
    await rejects(LIST, post({ contact: { name: 'Rolled back' }, inbox: ids.otherInbox }), 400, 'conversation.inbox');
    await rejects(
      LIST,
      post({ contact: { name: 'Rolled back' }, inbox: { id: ids.otherInbox, type: 'inboxes' } }),
      400,
      'conversation.inbox',
    );
    await rejects(LIST, post({ contactId: ids.contact, inbox: 2_000_000_000 }), 400, 'conversation.inbox');
    await rejects(
      LIST,
      post({ contactId: ids.contact, inbox: { id: ids.inbox, type: 'tickets' } }),
      400,
      /^conversation\.inbox/,
    );
  });

  it("another installation's agent cannot start a conversation with this installation's contact", async () => {
    await rejects(
      LIST,
      post({ contactId: ids.contact }, { key: other.users.agent.apiKey }),
      400,
      'conversation.contactId',
    );
  });
});

describe('POST /v2/conversations.json: the widget', () => {
  it('may not name contactId or inbox: 400 naming it', async () => {
    await rejects(LIST, post({ contactId: ids.contact }, { key: forms.live }), 400, 'conversation.contactId');
    await rejects(
      LIST,
      post({ contact: { name: 'Visitor' }, inbox: ids.inbox }, { key: forms.live }),
      400,
      'conversation.inbox',
    );
    await rejects(
      LIST,
      post({ contact: { name: 'Visitor' }, inbox: ids.otherInbox }, { key: forms.live }),
      400,
      'conversation.inbox',
    );
    await rejects(
      LIST,
      post({ contact: { name: 'Visitor' }, inbox: null }, { key: forms.live }),
      400,
      'conversation.inbox',
    );
  });

  it("a widget of another installation cannot reach this installation's contact", async () => {
    await rejects(LIST, post({ contactId: ids.contact }, { key: forms.otherLive }), 400, 'conversation.contactId');
  });

  it('a live form token opens POST only, not the rest of the API', async () => {
    await rejects(LIST, { method: 'GET', key: forms.live }, 401);
    await rejects(one(ids.conversation), { method: 'PATCH', key: forms.live, body: { status: 'closed' } }, 401);
  });
});

describe('GET /v2/conversations.json: bad parameters', () => {
  it('an unknown filter name: 400 naming it', async () => {
    const entry = expectError(
      await api(LIST, { key: agentKey, query: { filter: { subject: 'x' } } }),
      400,
      'filter.subject',
    );
    expect(entry.detail).toMatch(/contactId/);
    expectError(await api(LIST, { key: agentKey, query: { filter: { status: 'open' } } }), 400, 'filter.status');
    expectError(await api(LIST, { key: agentKey, query: { filter: { ticketId: 1 } } }), 400, 'filter.ticketId');
    expectError(await api(LIST, { key: agentKey, query: { filter: '{nope' } }), 400, 'filter');
    expectError(await api(LIST, { key: agentKey, query: { filter: { contactId: 'five' } } }), 400, 'filter.contactId');
    expectError(
      await api(LIST, { key: agentKey, query: { filter: { createdAt: 'yesterday' } } }),
      400,
      'filter.createdAt',
    );
  });

  it('pageSize 101 or 0, page 0, a bad orderBy or orderMode: 400 naming it', async () => {
    expectError(await api(LIST, { key: agentKey, query: { pageSize: 101 } }), 400, 'pageSize');
    expectError(await api(LIST, { key: agentKey, query: { pageSize: 0 } }), 400, 'pageSize');
    expectError(await api(LIST, { key: agentKey, query: { page: 0 } }), 400, 'page');
    expectError(await api(LIST, { key: agentKey, query: { orderBy: 'subject' } }), 400, 'orderBy');
    expectError(await api(LIST, { key: agentKey, query: { orderMode: 'up' } }), 400, 'orderMode');
    expect((await api(LIST, { key: agentKey, query: { pageSize: 100 } })).status).toBe(200);
  });

  it('an unknown include: 400 listing the allowed ones, on the list and by id', async () => {
    const entry = expectError(
      await api(LIST, { key: agentKey, query: { includes: 'contacts,tickets' } }),
      400,
      'includes',
    );
    expect(entry.detail).toMatch(/contacts, conversationmessages, customers, users, all/);
    expectError(await api(one(ids.conversation), { key: agentKey, query: { includes: 'files' } }), 400, 'includes');
  });

  it("no credential: 401; a bad id: 400; another installation's id: 404", async () => {
    const response = await api(LIST);
    expectError(response, 401);
    expect(response.headers.get('www-authenticate')).toMatch(/Bearer/);
    expectError(await api(one(ids.otherConversation), { key: agentKey }), 404, 'id');
    expectError(await api('/v2/conversations/abc.json', { key: agentKey }), 400, 'id');
    expectError(await api('/v2/conversations/0.json', { key: agentKey }), 400, 'id');
  });
});

describe('PATCH /v2/conversations/{id}.json refused', () => {
  it('a bad status, subject or ticket_id: 400 naming it', async () => {
    await rejects(
      one(ids.conversation),
      { method: 'PATCH', body: { conversation: { status: 'archived' } } },
      400,
      'conversation.status',
    );
    await rejects(
      one(ids.conversation),
      { method: 'PATCH', body: { conversation: { status: null } } },
      400,
      'conversation.status',
    );
    await rejects(
      one(ids.conversation),
      { method: 'PATCH', body: { conversation: { subject: 's'.repeat(256) } } },
      400,
      'conversation.subject',
    );
    await rejects(
      one(ids.conversation),
      { method: 'PATCH', body: { conversation: { ticket_id: -1 } } },
      400,
      'conversation.ticket_id',
    );
    await rejects(
      one(ids.conversation),
      { method: 'PATCH', body: { conversation: { ticket_id: 'T-1' } } },
      400,
      'conversation.ticket_id',
    );
    await rejects(
      one(ids.conversation),
      { method: 'PATCH', body: { conversation: { color: 'red', status: 'archived' } } },
      400,
      'conversation.status',
    );
  });

  it("another installation's contact or inbox: 400 naming it", async () => {
    await rejects(
      one(ids.conversation),
      { method: 'PATCH', body: { contactId: ids.otherContact } },
      400,
      'conversation.contactId',
    );
    await rejects(
      one(ids.conversation),
      { method: 'PATCH', body: { contactId: ids.deletedContact } },
      400,
      'conversation.contactId',
    );
    await rejects(
      one(ids.conversation),
      { method: 'PATCH', body: { inbox: ids.otherInbox } },
      400,
      'conversation.inbox',
    );
  });

  it("another installation's conversation: 404, and it is unchanged", async () => {
    await rejects(one(ids.otherConversation), { method: 'PATCH', body: { status: 'closed' } }, 404, 'id');
    await rejects(one(ids.otherConversation), { method: 'PUT', body: { subject: 'mine now' } }, 404, 'id');
  });

  it('a collaborator: 403; no credential: 401; not JSON: 415; malformed: 400', async () => {
    await rejects(
      one(ids.conversation),
      { method: 'PATCH', key: site.users.collaborator.apiKey, body: { status: 'closed' } },
      403,
    );
    await rejects(one(ids.conversation), { method: 'PATCH', key: null, body: { status: 'closed' } }, 401);
    await rejects(
      one(ids.conversation),
      { method: 'PATCH', body: 'status=closed', headers: { 'content-type': 'text/plain' } },
      415,
    );
    await rejects(one(ids.conversation), { method: 'PATCH', body: '{"status": ' }, 400, 'body');
  });

  it('conversations are not deleted through the API: DELETE has no route', async () => {
    await rejects(one(ids.conversation), { method: 'DELETE' }, 404, 'path');
    await rejects(
      '/v2/conversations/delete.json',
      { method: 'DELETE', query: { filter: { id: ids.conversation } } },
      404,
    );
  });
});
