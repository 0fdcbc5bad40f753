// Contact forms: all seven operations, the server's token, the list contract of part 2
// (filter, orderBy, includes), and bad input, each refusal leaving the database as it was.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api, type ApiResponse } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { expectIgnored } from '../support/ignored';
import { refusals } from '../support/refusals';

let site: SeededInstallation;
let other: SeededInstallation;
let key: string;
const ids = {
  inbox: 0,
  otherInbox: 0,
  helpdoc: 0,
  helpdoc2: 0,
  deletedHelpdoc: 0,
  otherHelpdoc: 0,
  form: 0,
  otherForm: 0,
};

const LIST = '/v2/contactforms.json';
const BULK_UPDATE = '/v2/contactforms/update.json';
const BULK_DELETE = '/v2/contactforms/delete.json';
const one = (id = ids.form) => `/v2/contactforms/${id}.json`;

const AUDIT_SET = ['createdAt', 'createdBy', 'deletedAt', 'deletedBy', 'updatedAt', 'updatedBy', 'state', 'id'];
const FILTER_NAMES = [
  ...AUDIT_SET,
  'accentColor',
  'inboxFieldName',
  'isLiveChatEnabled',
  'liveChatWelcomeMessage',
  'name',
  'position',
  'theme',
  'token',
  'triggerColor',
];
const TOKEN = /^[A-Za-z0-9_-]{32}$/;

/** Every row the contact-form endpoints can write, in both installations. */
async function snapshot() {
  const installations = [site.id, other.id];
  return {
    forms: await rows(
      `SELECT to_jsonb(f) - 'created_at' AS row, updated_at::text, deleted_at::text FROM contact_forms f WHERE installation_id = ANY($1) ORDER BY id`,
      [installations],
    ),
    helpdocs: await rows(
      `SELECT contact_form_id, helpdoc_id FROM contact_form_helpdocs WHERE installation_id = ANY($1) ORDER BY 1, 2`,
      [installations],
    ),
  };
}

const rejects = refusals(snapshot, () => key);

async function create(record: Record<string, unknown>, query = '', apiKey = key) {
  const response = await api(`${LIST}${query}`, { method: 'POST', key: apiKey, body: { contactform: record } });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

beforeAll(async () => {
  site = await newInstallation('forms');
  other = await newInstallation('forms-other');
  key = site.users.admin.apiKey;
  const [inbox] = await rows<{ id: number }>(
    `INSERT INTO inboxes (installation_id, name) VALUES ($1, 'Support') RETURNING id`,
    [site.id],
  );
  const [otherInbox] = await rows<{ id: number }>(
    `INSERT INTO inboxes (installation_id, name) VALUES ($1, 'Theirs') RETURNING id`,
    [other.id],
  );
  const [helpdoc, helpdoc2, deletedHelpdoc] = await rows<{ id: number }>(
    `INSERT INTO helpdocs (installation_id, name, url, state) VALUES ($1, 'Guides', 'https://help.test', 'active'), ($1, 'FAQ', NULL, 'active'), ($1, 'Gone', NULL, 'deleted') RETURNING id`,
    [site.id],
  );
  const [otherHelpdoc] = await rows<{ id: number }>(
    `INSERT INTO helpdocs (installation_id, name) VALUES ($1, 'Theirs') RETURNING id`,
    [other.id],
  );
  Object.assign(ids, {
    inbox: inbox!.id,
    otherInbox: otherInbox!.id,
    helpdoc: helpdoc!.id,
    helpdoc2: helpdoc2!.id,
    deletedHelpdoc: deletedHelpdoc!.id,
    otherHelpdoc: otherHelpdoc!.id,
  });
  ids.form = (await create({ name: 'Website', inbox: ids.inbox, helpdocs: [{ id: ids.helpdoc }] })).contactform.id;
  ids.otherForm = (await create({ name: 'Theirs' }, '', other.users.admin.apiKey)).contactform.id;
});

describe('create: POST /v2/contactforms.json', () => {
  it('answers 201 with the wrapped record, its defaults and a token of the server', async () => {
    const body = await create({ name: 'Pricing page' });
    expect(Object.keys(body).sort()).toEqual(['contactform', 'included']);
    expect(body.contactform).toMatchObject({
      type: 'contactforms',
      name: 'Pricing page',
      inbox: null,
      inboxFieldName: null,
      accentColor: '#3b82f6',
      triggerColor: '#3b82f6',
      theme: 'light',
      position: 'bottom-right',
      isLiveChatEnabled: false,
      liveChatWelcomeMessage: null,
      state: 'active',
      createdBy: { id: site.users.admin.id, type: 'users' },
    });
    expect(body.contactform.token).toMatch(TOKEN);
    const [row] = await rows(`SELECT token, installation_id FROM contact_forms WHERE id = $1`, [body.contactform.id]);
    expect(row).toEqual({ token: body.contactform.token, installation_id: site.id });
  });

  it('stores every property sent, colours in lower case, and links the help docs', async () => {
    const body = await create({
      name: 'Chat',
      inbox: { id: ids.inbox, type: 'inboxes' },
      inboxFieldName: 'Department',
      accentColor: '#AABBCC',
      triggerColor: '#000000',
      theme: 'dark',
      position: 'bottom-left',
      isLiveChatEnabled: true,
      liveChatWelcomeMessage: 'Hi! How can we help?',
      helpdocs: [{ id: ids.helpdoc, type: 'helpdocs' }, { id: ids.helpdoc2 }],
    });
    expect(body.contactform).toMatchObject({
      inbox: { id: ids.inbox, type: 'inboxes' },
      inboxFieldName: 'Department',
      accentColor: '#aabbcc',
      triggerColor: '#000000',
      theme: 'dark',
      position: 'bottom-left',
      isLiveChatEnabled: true,
      liveChatWelcomeMessage: 'Hi! How can we help?',
      helpdocs: [
        { id: ids.helpdoc, type: 'helpdocs' },
        { id: ids.helpdoc2, type: 'helpdocs' },
      ],
    });
    expect(body.included.helpdocs).toEqual([
      expect.objectContaining({ id: ids.helpdoc, type: 'helpdocs', name: 'Guides', url: 'https://help.test' }),
      expect.objectContaining({ id: ids.helpdoc2, type: 'helpdocs', name: 'FAQ', url: null }),
    ]);
  });

  it('never takes the token from the body, and gives every form its own', async () => {
    const a = await create({ name: 'Token A', token: 'chosen-by-client' });
    const b = await api(LIST, { method: 'POST', key, body: { name: 'Token B', token: 'chosen-by-client' } });
    expect(b.status, b.text).toBe(201);
    expect(a.contactform.token).toMatch(TOKEN);
    expect(b.body.contactform.token).toMatch(TOKEN);
    expect(a.contactform.token).not.toBe(b.body.contactform.token);
    expect(await rows(`SELECT 1 FROM contact_forms WHERE token = 'chosen-by-client'`)).toEqual([]);
  });

  it('lets the owner write as well as admins', async () => {
    await create({ name: 'By owner' }, '', site.users.owner.apiKey);
  });
});

describe('get: GET /v2/contactforms/{id}.json', () => {
  it('reads one, with includes on request', async () => {
    const plain = await api(one(), { key: site.users.agent.apiKey });
    expect(plain.status).toBe(200);
    expect(plain.body.contactform).toMatchObject({
      id: ids.form,
      name: 'Website',
      inbox: { id: ids.inbox, type: 'inboxes' },
    });
    expect(plain.body.contactform).not.toHaveProperty('helpdocs');
    expect(plain.body.included).toEqual({});
    const helpdocs = await api(one(), { key, query: { includes: 'helpdocs' } });
    expect(helpdocs.body.contactform.helpdocs).toEqual([{ id: ids.helpdoc, type: 'helpdocs' }]);
    const inboxes = await api(one(), { key, query: { includes: 'inboxes' } });
    expect(inboxes.body.included).toEqual({ inboxes: [expect.objectContaining({ id: ids.inbox, name: 'Support' })] });
    const users = await api(one(), { key, query: { includes: 'users' } });
    expect(users.body.included.users).toEqual([expect.objectContaining({ id: site.users.admin.id, role: 'admin' })]);
    const all = await api(one(), { key, query: { includes: 'all' } });
    expect(Object.keys(all.body.included).sort()).toEqual(['helpdocarticles', 'helpdocs', 'inboxes', 'users']);
  });

  it('is readable by a collaborator', async () => {
    expect((await api(one(), { key: site.users.collaborator.apiKey })).status).toBe(200);
  });

  it("answers 404 for an absent id and for another installation's", async () => {
    expectError(await api(one(987654321), { key }), 404, 'id');
    expectError(await api(one(ids.otherForm), { key }), 404, 'id');
  });
});

describe('update: PATCH /v2/contactforms/{id}.json', () => {
  it('changes exactly the properties sent', async () => {
    const { contactform } = await create({ name: 'Patch me', theme: 'dark', inboxFieldName: 'Topic' });
    const response = await api(one(contactform.id), {
      method: 'PATCH',
      key: site.users.owner.apiKey,
      body: { contactform: { isLiveChatEnabled: true, liveChatWelcomeMessage: 'Hello' } },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.contactform).toMatchObject({
      name: 'Patch me',
      theme: 'dark',
      inboxFieldName: 'Topic',
      isLiveChatEnabled: true,
      liveChatWelcomeMessage: 'Hello',
      token: contactform.token,
    });
  });

  it('accepts a token in the body and ignores it: the token is read-only', async () => {
    const { contactform } = await create({ name: 'Keep token' });
    for (const method of ['PATCH', 'PUT']) {
      const response = await api(one(contactform.id), {
        method,
        key,
        body: { contactform: { token: 'new-token', name: 'Kept token' } },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.contactform).toMatchObject({ name: 'Kept token', token: contactform.token });
    }
    const [row] = await rows(`SELECT token FROM contact_forms WHERE id = $1`, [contactform.id]);
    expect(row).toEqual({ token: contactform.token });
  });

  it('accepts the whole record sent back by PUT', async () => {
    const created = await create({ name: 'Round trip', helpdocs: [{ id: ids.helpdoc }] }, '?includes=all');
    const response = await api(one(created.contactform.id), {
      method: 'PUT',
      key,
      body: { ...created, contactform: { ...created.contactform, position: 'bottom-left' } },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.contactform).toMatchObject({ position: 'bottom-left', token: created.contactform.token });
  });

  it('links and unlinks help docs entry by entry', async () => {
    const { contactform } = await create({ name: 'Docs', helpdocs: [{ id: ids.helpdoc }] });
    const response = await api(one(contactform.id), {
      method: 'PATCH',
      key,
      body: { helpdocs: [{ id: ids.helpdoc, delete: true }, { id: ids.helpdoc2 }] },
    });
    expect(response.body.contactform.helpdocs).toEqual([{ id: ids.helpdoc2, type: 'helpdocs' }]);
    expect(
      await rows(`SELECT helpdoc_id FROM contact_form_helpdocs WHERE contact_form_id = $1`, [contactform.id]),
    ).toEqual([{ helpdoc_id: ids.helpdoc2 }]);
  });
});

describe('delete: DELETE /v2/contactforms/{id}.json', () => {
  it('soft-deletes: 204, then 404, found by a state filter', async () => {
    const { contactform } = await create({ name: 'Doomed' });
    const deleted = await api(one(contactform.id), { method: 'DELETE', key });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api(one(contactform.id), { key })).status).toBe(404);
    const withState = await api(LIST, { key, query: { filter: { id: contactform.id, state: 'deleted' } } });
    expect(withState.body.contactforms[0]).toMatchObject({
      state: 'deleted',
      deletedBy: { id: site.users.admin.id, type: 'users' },
    });
  });
});

describe('bulk: PATCH /v2/contactforms/update.json and DELETE /v2/contactforms/delete.json', () => {
  it('updates every form the filter selects and answers the bulk result', async () => {
    const a = (await create({ name: 'Bulk A', inboxFieldName: 'x-bulk' })).contactform;
    const b = (await create({ name: 'Bulk B', inboxFieldName: 'x-bulk' })).contactform;
    await create({ name: 'Bulk C', inboxFieldName: 'other' });
    const response = await api(BULK_UPDATE, {
      method: 'PATCH',
      key,
      query: { filter: { inboxFieldName: 'x-bulk' } },
      body: { contactform: { theme: 'dark', token: 'ignored' } },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ affected: 2, ids: [a.id, b.id], jobId: null, dryRun: false });
    const stored = await rows(
      `SELECT name, theme, token FROM contact_forms WHERE installation_id = $1 AND name LIKE 'Bulk %' ORDER BY name`,
      [site.id],
    );
    expect(stored.map((r) => [r.name, r.theme])).toEqual([
      ['Bulk A', 'dark'],
      ['Bulk B', 'dark'],
      ['Bulk C', 'light'],
    ]);
    expect(stored[0]!.token).toBe(a.token);
  });

  it('deletes every form the filter selects', async () => {
    const a = (await create({ name: 'Gone 1', inboxFieldName: 'x-gone' })).contactform;
    const b = (await create({ name: 'Gone 2', inboxFieldName: 'x-gone' })).contactform;
    const response = await api(BULK_DELETE, { method: 'DELETE', key, query: { filter: { inboxFieldName: 'x-gone' } } });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ affected: 2, ids: [a.id, b.id], jobId: null, dryRun: false });
  });

  it("selects by token and never touches another installation's forms", async () => {
    const [theirs] = await rows<{ token: string }>(`SELECT token FROM contact_forms WHERE id = $1`, [ids.otherForm]);
    const response = await api(BULK_UPDATE, {
      method: 'PATCH',
      key,
      query: { filter: { token: theirs!.token } },
      body: { name: 'Hijacked' },
    });
    expect(response.body).toEqual({ affected: 0, ids: [], jobId: null, dryRun: false });
    const removed = await api(BULK_DELETE, { method: 'DELETE', key, query: { filter: { id: ids.otherForm } } });
    expect(removed.body).toEqual({ affected: 0, ids: [], jobId: null, dryRun: false });
    expect(await rows(`SELECT name, state FROM contact_forms WHERE id = $1`, [ids.otherForm])).toEqual([
      { name: 'Theirs', state: 'active' },
    ]);
  });
});

describe('list: GET /v2/contactforms.json', () => {
  let listSite: SeededInstallation;
  let listKey: string;
  beforeAll(async () => {
    listSite = await newInstallation('forms-list');
    listKey = listSite.users.collaborator.apiKey;
    for (const record of [
      {
        name: 'Charlie',
        theme: 'dark',
        isLiveChatEnabled: true,
        liveChatWelcomeMessage: 'Hey',
        accentColor: '#cccccc',
      },
      { name: 'Alpha', position: 'bottom-left', accentColor: '#aaaaaa', triggerColor: '#111111' },
      { name: 'Bravo', inboxFieldName: 'Team', accentColor: '#bbbbbb' },
    ]) {
      await create(record, '', listSite.users.admin.apiKey);
    }
  });
  const names = (response: ApiResponse) => response.body.contactforms.map((r: { name: string }) => r.name);

  it('wraps the page as the plural with meta.page', async () => {
    const response = await api(`${LIST}?pageSize=2`, { key: listKey });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['contactforms', 'included', 'meta', 'pagination']);
    expect(names(response)).toEqual(['Charlie', 'Alpha']);
    expect(response.body.meta).toEqual({
      page: { page: 1, pageSize: 2, pageOffset: 0, count: 3, pages: 2, hasMore: true },
    });
  });

  it('filters on the properties of part 2', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ theme: 'dark' }, ['Charlie']],
      [{ position: 'bottom-left' }, ['Alpha']],
      [{ isLiveChatEnabled: true }, ['Charlie']],
      [{ liveChatWelcomeMessage: { $ne: null } }, ['Charlie']],
      [{ inboxFieldName: 'Team' }, ['Bravo']],
      [{ accentColor: { $in: ['#aaaaaa', '#bbbbbb'] } }, ['Alpha', 'Bravo']],
      [{ triggerColor: '#111111' }, ['Alpha']],
      [{ name: { $contains: 'RAV' } }, ['Bravo']],
    ];
    for (const [filter, expected] of cases) {
      const response = await api(`${LIST}?orderBy=name`, { key: listKey, query: { filter } });
      expect(names(response), JSON.stringify(filter)).toEqual(expected);
    }
    const [bravo] = await rows<{ token: string }>(
      `SELECT token FROM contact_forms WHERE installation_id = $1 AND name = 'Bravo'`,
      [listSite.id],
    );
    expect(names(await api(LIST, { key: listKey, query: { filter: { token: bravo!.token } } }))).toEqual(['Bravo']);
  });

  it('accepts every filter name of part 2', async () => {
    const values: Record<string, unknown> = {
      createdAt: { $gt: '2000-01-01' },
      updatedAt: { $lt: '2999-01-01' },
      deletedAt: null,
      createdBy: listSite.users.admin.id,
      updatedBy: { $ne: 0 },
      deletedBy: null,
      state: 'active',
      id: { $gt: 0 },
      accentColor: '#aaaaaa',
      inboxFieldName: null,
      isLiveChatEnabled: false,
      liveChatWelcomeMessage: null,
      name: 'Alpha',
      position: 'bottom-left',
      theme: 'light',
      token: { $ne: 'x' },
      triggerColor: { $contains: '1' },
    };
    for (const name of FILTER_NAMES) {
      const response = await api(LIST, { key: listKey, query: { filter: { [name]: values[name] } } });
      expect(response.status, `${name}: ${response.text}`).toBe(200);
      expect(response.body.contactforms.length, name).toBeGreaterThan(0);
    }
  });

  it('orders by every name of part 2', async () => {
    for (const name of FILTER_NAMES) {
      const response = await api(LIST, { key: listKey, query: { orderBy: name, orderMode: 'desc' } });
      expect(response.status, `${name}: ${response.text}`).toBe(200);
      expect(response.body.contactforms).toHaveLength(3);
    }
    expect(names(await api(LIST, { key: listKey, query: { orderBy: 'accentColor', orderMode: 'desc' } }))).toEqual([
      'Charlie',
      'Bravo',
      'Alpha',
    ]);
  });

  it('includes every name of part 2', async () => {
    for (const name of ['helpdocs', 'inboxes', 'users', 'all', 'helpdocs,users']) {
      const response = await api(LIST, { key: listKey, query: { includes: name } });
      expect(response.status, `${name}: ${response.text}`).toBe(200);
    }
  });

  it('answers 400 naming a filter, orderBy or includes name that is not allowed', async () => {
    // `inbox` is a property but not among the filter names of part 2.
    for (const name of ['inbox', 'helpdocs', 'color', 'inboxes']) {
      expectError(await api(LIST, { key: listKey, query: { filter: { [name]: 1 } } }), 400, `filter.${name}`);
      expectError(await api(LIST, { key: listKey, query: { orderBy: name } }), 400, 'orderBy');
    }
    for (const name of ['files', 'customers', 'inbox'])
      expectError(await api(LIST, { key: listKey, query: { includes: name } }), 400, 'includes');
    expectError(
      await api(BULK_DELETE, { method: 'DELETE', key, query: { filter: { inbox: ids.inbox } } }),
      400,
      'filter.inbox',
    );
  });
});

describe('bad input', () => {
  const writes = (): { path: string; method: string; query: Record<string, object> }[] => [
    { path: LIST, method: 'POST', query: {} },
    { path: one(), method: 'PATCH', query: {} },
    { path: one(), method: 'PUT', query: {} },
    { path: BULK_UPDATE, method: 'PATCH', query: { filter: { id: ids.form } } },
  ];
  const bodies: [string, string, string][] = [
    ['malformed JSON', '{"contactform": {"name": "Broken",}', 'body'],
    ['an empty body', '', 'body'],
    ['a JSON number', '42', 'body'],
    ['a wrapper holding an array', '{"contactform": []}', 'contactform'],
  ];
  for (const [what, text, source] of bodies) {
    it(`answers 400 to ${what} on POST, PATCH, PUT and bulk update`, async () => {
      for (const target of writes()) {
        await rejects(
          target.path,
          { method: target.method, query: target.query, body: text, headers: { 'content-type': 'application/json' } },
          400,
          source,
        );
      }
    });
  }

  const wrongTypes: [string, Record<string, unknown>, string][] = [
    ['name: 5', { name: 5 }, 'contactform.name'],
    ['a blank name', { name: ' ' }, 'contactform.name'],
    ["accentColor: 'red'", { accentColor: 'red' }, 'contactform.accentColor'],
    ["accentColor: '#fff'", { accentColor: '#fff' }, 'contactform.accentColor'],
    ["triggerColor: '#12345g'", { triggerColor: '#12345g' }, 'contactform.triggerColor'],
    ['triggerColor: null', { triggerColor: null }, 'contactform.triggerColor'],
    ["theme: 'blue'", { theme: 'blue' }, 'contactform.theme'],
    ["position: 'top-left'", { position: 'top-left' }, 'contactform.position'],
    ["isLiveChatEnabled: 'yes'", { isLiveChatEnabled: 'yes' }, 'contactform.isLiveChatEnabled'],
    ['isLiveChatEnabled: null', { isLiveChatEnabled: null }, 'contactform.isLiveChatEnabled'],
    [
      'a welcome message over 1,000 characters',
      { liveChatWelcomeMessage: 'w'.repeat(1001) },
      'contactform.liveChatWelcomeMessage',
    ],
    ['inboxFieldName: 3', { inboxFieldName: 3 }, 'contactform.inboxFieldName'],
    ["inbox: 'Support'", { inbox: 'Support' }, 'contactform.inbox'],
  ];
  for (const [what, properties, source] of wrongTypes) {
    it(`answers 400 naming ${source} for ${what}`, async () => {
      await rejects(LIST, { method: 'POST', body: { contactform: { name: 'Typed', ...properties } } }, 400, source);
      await rejects(one(), { method: 'PATCH', body: { contactform: properties } }, 400, source);
      await rejects(
        BULK_UPDATE,
        { method: 'PATCH', query: { filter: { id: ids.form } }, body: { contactform: properties } },
        400,
        source,
      );
    });
  }

  it('ignores an unknown property, wrapped or bare, in bulk and in a link entry, naming it in X-Ignored-Properties; nothing of it is stored', async () => {
    const made = await api(LIST, {
      method: 'POST',
      key,
      body: { contactform: { name: 'Ignoring form', colour: 'crimson' } },
    });
    expectIgnored(made, ['contactform.colour']);
    const id = made.body.contactform.id as number;
    expectIgnored(await api(one(id), { method: 'PATCH', key, body: { backgroundColor: '#fafafa' } }), [
      'contactform.backgroundColor',
    ]);
    expectIgnored(
      await api(BULK_UPDATE, { method: 'PATCH', key, query: { filter: { id } }, body: { theme: 'dark', nope: 1 } }),
      ['contactform.nope'],
    );
    expectIgnored(
      await api(one(id), { method: 'PATCH', key, body: { helpdocs: [{ id: ids.helpdoc2, url: 'https://x.test' }] } }),
      ['contactform.helpdocs[0].url'],
    );
    expect(
      JSON.stringify(await rows(`SELECT to_jsonb(f) AS row FROM contact_forms f WHERE id = $1`, [id])),
    ).not.toMatch(/crimson|#fafafa|nope/);
    expect(await rows(`SELECT helpdoc_id FROM contact_form_helpdocs WHERE contact_form_id = $1`, [id])).toEqual([
      { helpdoc_id: ids.helpdoc2 },
    ]);
  });

  it('answers 400 naming name when a form is created without one', async () => {
    await rejects(LIST, { method: 'POST', body: { contactform: { theme: 'dark' } } }, 400, 'contactform.name');
    await rejects(LIST, { method: 'POST', body: { token: 'x' } }, 400, 'contactform.name');
  });

  it('answers 400 to a bulk update that only sends the read-only token, or has no filter', async () => {
    await rejects(
      BULK_UPDATE,
      { method: 'PATCH', query: { filter: { id: ids.form } }, body: { token: 'x' } },
      400,
      'contactform',
    );
    await rejects(BULK_UPDATE, { method: 'PATCH', body: { theme: 'dark' } }, 400, 'filter');
    await rejects(BULK_DELETE, { method: 'DELETE', query: { filter: {} } }, 400, 'filter');
  });

  it('answers 400 naming the inbox or help doc of another installation, deleted or absent', async () => {
    await rejects(LIST, { method: 'POST', body: { name: 'x', inbox: ids.otherInbox } }, 400, 'contactform.inbox');
    await rejects(
      one(),
      { method: 'PATCH', body: { inbox: { id: ids.otherInbox, type: 'inboxes' } } },
      400,
      'contactform.inbox',
    );
    await rejects(
      BULK_UPDATE,
      { method: 'PATCH', query: { filter: { id: ids.form } }, body: { inbox: ids.otherInbox } },
      400,
      'contactform.inbox',
    );
    for (const helpdoc of [ids.otherHelpdoc, ids.deletedHelpdoc, 987654321]) {
      await rejects(
        LIST,
        { method: 'POST', body: { name: 'x', helpdocs: [{ id: helpdoc }] } },
        400,
        'contactform.helpdocs[0].id',
      );
      await rejects(
        one(),
        { method: 'PATCH', body: { name: 'Renamed', helpdocs: [{ id: ids.helpdoc2 }, { id: helpdoc }] } },
        400,
        'contactform.helpdocs[1].id',
      );
    }
  });

  it("answers 404 to a PATCH or DELETE of another installation's form, which stays as it was", async () => {
    await rejects(one(ids.otherForm), { method: 'PATCH', body: { name: 'Hijacked' } }, 404, 'id');
    await rejects(one(ids.otherForm), { method: 'DELETE' }, 404, 'id');
  });

  it('answers 403 to agents and collaborators writing (forms are settings), and changes nothing', async () => {
    for (const role of ['agent', 'collaborator'] as const) {
      const apiKey = site.users[role].apiKey;
      await rejects(LIST, { method: 'POST', key: apiKey, body: { name: 'x' } }, 403, null);
      await rejects(one(), { method: 'PATCH', key: apiKey, body: { name: 'x' } }, 403, null);
      await rejects(one(), { method: 'DELETE', key: apiKey }, 403, null);
      await rejects(
        BULK_UPDATE,
        { method: 'PATCH', key: apiKey, query: { filter: { id: ids.form } }, body: { name: 'x' } },
        403,
        null,
      );
      await rejects(BULK_DELETE, { method: 'DELETE', key: apiKey, query: { filter: { id: ids.form } } }, 403, null);
    }
  });
});
