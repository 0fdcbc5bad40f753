// Canned responses: CRUD, the list contract of part 2 (filter, orderBy, includes), and bad
// input, each refusal answering the one error body and leaving the database as it was.
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
  inbox2: 0,
  deletedInbox: 0,
  otherInbox: 0,
  file: 0,
  file2: 0,
  otherFile: 0,
  welcome: 0,
  otherResponse: 0,
};

const LIST = '/v2/cannedresponses.json';
const one = (id = ids.welcome) => `/v2/cannedresponses/${id}.json`;

const AUDIT_SET = ['createdAt', 'createdBy', 'deletedAt', 'deletedBy', 'updatedAt', 'updatedBy', 'state', 'id'];
const FILTER_NAMES = [...AUDIT_SET, 'inbox', 'name', 'reply'];

/** Every row the canned-response endpoints can write, in both installations. */
async function snapshot() {
  const installations = [site.id, other.id];
  return {
    responses: await rows(
      `SELECT id, installation_id, name, reply, inbox_id, state, updated_at::text, updated_by, deleted_at::text
         FROM canned_responses WHERE installation_id = ANY($1) ORDER BY id`,
      [installations],
    ),
    files: await rows(
      `SELECT canned_response_id, file_id FROM canned_response_files WHERE installation_id = ANY($1) ORDER BY 1, 2`,
      [installations],
    ),
  };
}

const rejects = refusals(snapshot, () => key);

async function create(record: Record<string, unknown>, query = '', apiKey = key) {
  const response = await api(`${LIST}${query}`, { method: 'POST', key: apiKey, body: { cannedresponse: record } });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

beforeAll(async () => {
  site = await newInstallation('canned');
  other = await newInstallation('canned-other');
  key = site.users.agent.apiKey;
  const [inbox, inbox2, deletedInbox] = await rows<{ id: number }>(
    `INSERT INTO inboxes (installation_id, name, email, state) VALUES ($1, 'Support', 'support@x.test', 'active'), ($1, 'Sales', NULL, 'active'), ($1, 'Old', NULL, 'deleted') RETURNING id`,
    [site.id],
  );
  const [otherInbox] = await rows<{ id: number }>(
    `INSERT INTO inboxes (installation_id, name) VALUES ($1, 'Theirs') RETURNING id`,
    [other.id],
  );
  const [file, file2] = await rows<{ id: number }>(
    `INSERT INTO files (installation_id, name, content_type, size, url, created_by, confirmed_at)
     VALUES ($1, 'guide.pdf', 'application/pdf', 1200, 'https://files.test/guide.pdf', $2, now()), ($1, 'logo.png', 'image/png', 300, NULL, $2, now()) RETURNING id`,
    [site.id, site.users.agent.id],
  );
  const [otherFile] = await rows<{ id: number }>(
    `INSERT INTO files (installation_id, name) VALUES ($1, 'secret.txt') RETURNING id`,
    [other.id],
  );
  Object.assign(ids, {
    inbox: inbox!.id,
    inbox2: inbox2!.id,
    deletedInbox: deletedInbox!.id,
    otherInbox: otherInbox!.id,
    file: file!.id,
    file2: file2!.id,
    otherFile: otherFile!.id,
  });
  ids.welcome = (
    await create({
      name: 'Welcome',
      reply: 'Hello and welcome!',
      inbox: { id: ids.inbox, type: 'inboxes' },
      files: [{ id: ids.file }],
    })
  ).cannedresponse.id;
  ids.otherResponse = (
    await create({ name: 'Theirs', reply: 'Not yours' }, '', other.users.agent.apiKey)
  ).cannedresponse.id;
});

describe('create: POST /v2/cannedresponses.json', () => {
  it('answers 201 with the wrapped record, the inbox as a reference and the files it linked', async () => {
    const body = await create({
      name: 'Refund',
      reply: 'Your refund is on its way.\n',
      inbox: { id: ids.inbox2, type: 'inboxes' },
      files: [{ id: ids.file, type: 'files' }, { id: ids.file2 }],
    });
    expect(Object.keys(body).sort()).toEqual(['cannedresponse', 'included']);
    expect(body.cannedresponse).toMatchObject({
      type: 'cannedresponses',
      name: 'Refund',
      reply: 'Your refund is on its way.\n',
      inbox: { id: ids.inbox2, type: 'inboxes' },
      files: [
        { id: ids.file, type: 'files' },
        { id: ids.file2, type: 'files' },
      ],
      state: 'active',
      createdBy: { id: site.users.agent.id, type: 'users' },
      updatedBy: { id: site.users.agent.id, type: 'users' },
    });
    expect(body.cannedresponse).not.toHaveProperty('deletedAt');
    expect(body.included.files.map((f: { name: string }) => f.name)).toEqual(['guide.pdf', 'logo.png']);
    expect(body.included.files[0]).toMatchObject({
      type: 'files',
      contentType: 'application/pdf',
      size: 1200,
      url: 'https://files.test/guide.pdf',
    });
    const links = await rows(
      `SELECT file_id, installation_id FROM canned_response_files WHERE canned_response_id = $1 ORDER BY file_id`,
      [body.cannedresponse.id],
    );
    expect(links).toEqual([
      { file_id: ids.file, installation_id: site.id },
      { file_id: ids.file2, installation_id: site.id },
    ]);
  });

  it('accepts a bare body, an inbox as a bare id, and no inbox at all', async () => {
    const bare = await api(LIST, { method: 'POST', key, body: { name: 'Bare', reply: 'Hi', inbox: ids.inbox } });
    expect(bare.status, bare.text).toBe(201);
    expect(bare.body.cannedresponse.inbox).toEqual({ id: ids.inbox, type: 'inboxes' });
    const noInbox = await create({ name: 'Everywhere', reply: 'For every inbox' });
    expect(noInbox.cannedresponse.inbox).toBeNull();
    expect(noInbox.included).toEqual({});
  });

  it('ignores the read-only properties a client sends back', async () => {
    const body = await create({
      id: 5,
      type: 'cannedresponses',
      state: 'deleted',
      createdAt: null,
      createdBy: 0,
      name: 'Echo',
      reply: 'Echo',
    });
    expect(body.cannedresponse.id).not.toBe(5);
    expect(body.cannedresponse.state).toBe('active');
  });

  it('lets admins and owners write as well as agents', async () => {
    await create({ name: 'By admin', reply: 'x' }, '', site.users.admin.apiKey);
    await create({ name: 'By owner', reply: 'x' }, '', site.users.owner.apiKey);
  });
});

describe('get: GET /v2/cannedresponses/{id}.json', () => {
  it('reads one, with includes on request', async () => {
    const plain = await api(one(), { key });
    expect(plain.status).toBe(200);
    expect(plain.body.cannedresponse).toMatchObject({
      id: ids.welcome,
      name: 'Welcome',
      reply: 'Hello and welcome!',
      inbox: { id: ids.inbox, type: 'inboxes' },
    });
    expect(plain.body.cannedresponse).not.toHaveProperty('files');
    expect(plain.body.included).toEqual({});

    const inboxes = await api(one(), { key, query: { includes: 'inboxes' } });
    expect(inboxes.body.included).toEqual({
      inboxes: [expect.objectContaining({ id: ids.inbox, type: 'inboxes', name: 'Support', email: 'support@x.test' })],
    });
    expect(inboxes.body.cannedresponse).not.toHaveProperty('inboxes');

    const files = await api(one(), { key, query: { includes: 'files' } });
    expect(files.body.cannedresponse.files).toEqual([{ id: ids.file, type: 'files' }]);
    expect(files.body.included.files).toHaveLength(1);

    const users = await api(one(), { key, query: { includes: 'users' } });
    expect(users.body.included.users).toEqual([
      expect.objectContaining({ id: site.users.agent.id, type: 'users', role: 'agent' }),
    ]);

    const all = await api(one(), { key, query: { includes: 'all' } });
    expect(Object.keys(all.body.included).sort()).toEqual(['files', 'inboxes', 'users']);
  });

  it('is readable by a collaborator', async () => {
    expect((await api(one(), { key: site.users.collaborator.apiKey })).status).toBe(200);
  });

  it("answers 404 for an absent id and for another installation's", async () => {
    expectError(await api(one(987654321), { key }), 404, 'id');
    expectError(await api(one(ids.otherResponse), { key }), 404, 'id');
  });

  it('answers 400 naming an include that is not allowed', async () => {
    for (const name of ['customers', 'helpdocs', 'inbox', 'file'])
      expectError(await api(one(), { key, query: { includes: name } }), 400, 'includes');
  });
});

describe('update: PATCH /v2/cannedresponses/{id}.json', () => {
  it('changes exactly the properties sent', async () => {
    const { cannedresponse } = await create({ name: 'Patch me', reply: 'Before', inbox: ids.inbox });
    const response = await api(one(cannedresponse.id), {
      method: 'PATCH',
      key: site.users.admin.apiKey,
      body: { cannedresponse: { reply: 'After' } },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.cannedresponse).toMatchObject({
      name: 'Patch me',
      reply: 'After',
      inbox: { id: ids.inbox, type: 'inboxes' },
      updatedBy: { id: site.users.admin.id, type: 'users' },
    });
    const cleared = await api(one(cannedresponse.id), { method: 'PATCH', key, body: { inbox: null } });
    expect(cleared.body.cannedresponse).toMatchObject({ reply: 'After', inbox: null });
  });

  it('links and unlinks files entry by entry', async () => {
    const { cannedresponse } = await create({ name: 'Files', reply: 'x', files: [{ id: ids.file }] });
    const response = await api(one(cannedresponse.id), {
      method: 'PATCH',
      key,
      body: { files: [{ id: ids.file, type: 'files', delete: true }, { id: ids.file2 }] },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.cannedresponse.files).toEqual([{ id: ids.file2, type: 'files' }]);
    const links = await rows(`SELECT file_id FROM canned_response_files WHERE canned_response_id = $1`, [
      cannedresponse.id,
    ]);
    expect(links).toEqual([{ file_id: ids.file2 }]);
  });

  it('accepts PUT with the meaning of PATCH, and the whole record sent back', async () => {
    const created = await create({ name: 'Put me', reply: 'x', files: [{ id: ids.file }] }, '?includes=all');
    const response = await api(one(created.cannedresponse.id), {
      method: 'PUT',
      key,
      body: { ...created, cannedresponse: { ...created.cannedresponse, name: 'Put done' } },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.cannedresponse).toMatchObject({ name: 'Put done', reply: 'x' });
  });
});

describe('delete: DELETE /v2/cannedresponses/{id}.json', () => {
  it('soft-deletes: 204, then 404, gone from lists, found by a state filter', async () => {
    const { cannedresponse } = await create({ name: 'Doomed', reply: 'x' });
    const deleted = await api(one(cannedresponse.id), { method: 'DELETE', key });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api(one(cannedresponse.id), { key })).status).toBe(404);
    expect((await api(LIST, { key, query: { filter: { id: cannedresponse.id } } })).body.cannedresponses).toEqual([]);
    const withState = await api(LIST, { key, query: { filter: { id: cannedresponse.id, state: 'deleted' } } });
    expect(withState.body.cannedresponses[0]).toMatchObject({
      state: 'deleted',
      deletedBy: { id: site.users.agent.id, type: 'users' },
    });
  });

  it("answers 404 for another installation's canned response and leaves it", async () => {
    await rejects(one(ids.otherResponse), { method: 'DELETE' }, 404, 'id');
  });
});

describe('list: GET /v2/cannedresponses.json', () => {
  let listSite: SeededInstallation;
  let listKey: string;
  let support = 0;
  beforeAll(async () => {
    listSite = await newInstallation('canned-list');
    listKey = listSite.users.collaborator.apiKey;
    const [inbox] = await rows<{ id: number }>(
      `INSERT INTO inboxes (installation_id, name) VALUES ($1, 'Support') RETURNING id`,
      [listSite.id],
    );
    support = inbox!.id;
    for (const record of [
      { name: 'Charlie', reply: 'gamma', inbox: support },
      { name: 'Alpha', reply: 'alpha reply' },
      { name: 'Bravo', reply: 'beta', inbox: support },
    ]) {
      await create(record, '', listSite.users.agent.apiKey);
    }
  });
  const names = (response: ApiResponse) => response.body.cannedresponses.map((r: { name: string }) => r.name);

  it('wraps the page as the plural with meta.page', async () => {
    const response = await api(`${LIST}?pageSize=2&page=2`, { key: listKey });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['cannedresponses', 'included', 'meta', 'pagination']);
    expect(names(response)).toEqual(['Bravo']);
    expect(response.body.meta).toEqual({
      page: { page: 2, pageSize: 2, pageOffset: 2, count: 3, pages: 2, hasMore: false },
    });
  });

  it('filters on inbox, name and reply', async () => {
    const byInbox = await api(`${LIST}?orderBy=name`, { key: listKey, query: { filter: { inbox: support } } });
    expect(names(byInbox)).toEqual(['Bravo', 'Charlie']);
    expect(names(await api(LIST, { key: listKey, query: { filter: { inbox: null } } }))).toEqual(['Alpha']);
    expect(names(await api(LIST, { key: listKey, query: { filter: { name: 'Alpha' } } }))).toEqual(['Alpha']);
    expect(names(await api(LIST, { key: listKey, query: { filter: { reply: { $contains: 'ETA' } } } }))).toEqual([
      'Bravo',
    ]);
  });

  it('accepts every filter name of part 2', async () => {
    const values: Record<string, unknown> = {
      createdAt: { $gt: '2000-01-01' },
      updatedAt: { $lt: '2999-01-01' },
      deletedAt: null,
      createdBy: listSite.users.agent.id,
      updatedBy: listSite.users.agent.id,
      deletedBy: null,
      state: 'active',
      id: { $gt: 0 },
      inbox: { $ne: null },
      name: { $contains: 'a' },
      reply: { $ne: 'x' },
    };
    for (const name of FILTER_NAMES) {
      const response = await api(LIST, { key: listKey, query: { filter: { [name]: values[name] } } });
      expect(response.status, `${name}: ${response.text}`).toBe(200);
    }
  });

  it('orders by every name of part 2', async () => {
    for (const name of FILTER_NAMES) {
      const response = await api(LIST, { key: listKey, query: { orderBy: name, orderMode: 'desc' } });
      expect(response.status, `${name}: ${response.text}`).toBe(200);
      expect(response.body.cannedresponses).toHaveLength(3);
    }
    expect(names(await api(LIST, { key: listKey, query: { orderBy: 'name' } }))).toEqual(['Alpha', 'Bravo', 'Charlie']);
    expect(names(await api(LIST, { key: listKey, query: { orderBy: 'reply', orderMode: 'desc' } }))).toEqual([
      'Charlie',
      'Bravo',
      'Alpha',
    ]);
  });

  it('includes every name of part 2', async () => {
    for (const name of ['files', 'inboxes', 'users', 'all', 'files,inboxes,users']) {
      const response = await api(LIST, { key: listKey, query: { includes: name } });
      expect(response.status, `${name}: ${response.text}`).toBe(200);
    }
    const inboxes = await api(LIST, { key: listKey, query: { includes: 'inboxes' } });
    expect(inboxes.body.included.inboxes).toEqual([expect.objectContaining({ id: support, name: 'Support' })]);
  });

  it('answers 400 naming a filter, orderBy or includes name that is not allowed', async () => {
    for (const name of ['files', 'inboxId', 'inboxes', 'title', 'token']) {
      expectError(await api(LIST, { key: listKey, query: { filter: { [name]: 1 } } }), 400, `filter.${name}`);
      expectError(await api(LIST, { key: listKey, query: { orderBy: name } }), 400, 'orderBy');
    }
    for (const name of ['customers', 'helpdocs', 'inbox'])
      expectError(await api(LIST, { key: listKey, query: { includes: name } }), 400, 'includes');
  });
});

describe('bad input', () => {
  const bodies: [string, string, string][] = [
    ['malformed JSON', '{"cannedresponse": {"name": "Broken",}', 'body'],
    ['an empty body', '', 'body'],
    ['a JSON array', '[{"name": "x"}]', 'body'],
    ['a wrapper holding a string', '{"cannedresponse": "x"}', 'cannedresponse'],
  ];
  for (const [what, text, source] of bodies) {
    it(`answers 400 to ${what} on POST, PATCH and PUT`, async () => {
      for (const [path, method] of [
        [LIST, 'POST'],
        [one(), 'PATCH'],
        [one(), 'PUT'],
      ] as const) {
        await rejects(path, { method, body: text, headers: { 'content-type': 'application/json' } }, 400, source);
      }
    });
  }

  it('answers 415 to a body that is not JSON', async () => {
    await rejects(
      LIST,
      { method: 'POST', body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      415,
      'body',
    );
  });

  const wrongTypes: [string, Record<string, unknown>, string][] = [
    ['name: 5', { name: 5 }, 'cannedresponse.name'],
    ['a blank name', { name: '  ' }, 'cannedresponse.name'],
    ['name: null', { name: null }, 'cannedresponse.name'],
    ['reply: []', { reply: [] }, 'cannedresponse.reply'],
    ['a blank reply', { reply: ' \n ' }, 'cannedresponse.reply'],
    ['reply: null', { reply: null }, 'cannedresponse.reply'],
    ["inbox: 'Support'", { inbox: 'Support' }, 'cannedresponse.inbox'],
    ['inbox: 0', { inbox: 0 }, 'cannedresponse.inbox'],
    ['an inbox reference of the wrong type', { inbox: { id: 1, type: 'users' } }, 'cannedresponse.inbox'],
    ['files: not an array', { files: { id: 1 } }, 'cannedresponse.files'],
    ['a file entry without an id', { files: [{ type: 'files' }] }, 'cannedresponse.files[0].id'],
    ['a NUL in the reply', { reply: 'a\u0000b' }, 'cannedresponse.reply'],
  ];
  for (const [what, properties, source] of wrongTypes) {
    it(`answers 400 naming ${source} for ${what}`, async () => {
      await rejects(
        LIST,
        { method: 'POST', body: { cannedresponse: { name: 'Typed', reply: 'Typed', ...properties } } },
        400,
        source,
      );
      await rejects(one(), { method: 'PATCH', body: { cannedresponse: properties } }, 400, source);
    });
  }

  it('ignores an unknown property, wrapped or bare, beside the wrapper or in a link entry, naming it in X-Ignored-Properties; nothing of it is stored', async () => {
    const made = await api(LIST, {
      method: 'POST',
      key,
      body: { cannedresponse: { name: 'Ignoring', reply: 'x', colour: 'crimson' } },
    });
    expectIgnored(made, ['cannedresponse.colour']);
    const id = made.body.cannedresponse.id as number;
    const path = `/v2/cannedresponses/${id}.json`;
    expectIgnored(await api(path, { method: 'PATCH', key, body: { subject: 'a subject' } }), [
      'cannedresponse.subject',
    ]);
    expectIgnored(
      await api(path, { method: 'PATCH', key, body: { cannedresponse: { name: 'Ignoring still' }, extra: 1 } }),
      ['extra'],
    );
    expectIgnored(await api(path, { method: 'PATCH', key, body: { files: [{ id: ids.file2, name: 'renamed' }] } }), [
      'cannedresponse.files[0].name',
    ]);
    expect(
      JSON.stringify(await rows(`SELECT to_jsonb(c) AS row FROM canned_responses c WHERE id = $1`, [id])),
    ).not.toMatch(/crimson|a subject|renamed/);
  });

  it('answers 400 naming each missing required property on create', async () => {
    await rejects(LIST, { method: 'POST', body: { cannedresponse: { reply: 'No name' } } }, 400, 'cannedresponse.name');
    await rejects(
      LIST,
      { method: 'POST', body: { cannedresponse: { name: 'No reply' } } },
      400,
      'cannedresponse.reply',
    );
    await rejects(LIST, { method: 'POST', body: {} }, 400, 'cannedresponse.reply');
  });

  it('answers 400 naming the inbox for an inbox of another installation, a deleted one or none', async () => {
    for (const inbox of [ids.otherInbox, ids.deletedInbox, 987654321]) {
      await rejects(
        LIST,
        { method: 'POST', body: { cannedresponse: { name: 'x', reply: 'x', inbox } } },
        400,
        'cannedresponse.inbox',
      );
      await rejects(
        one(),
        { method: 'PATCH', body: { inbox: { id: inbox, type: 'inboxes' } } },
        400,
        'cannedresponse.inbox',
      );
    }
  });

  it('answers 400 naming the entry for a file of another installation or none, and links nothing', async () => {
    await rejects(
      LIST,
      { method: 'POST', body: { cannedresponse: { name: 'x', reply: 'x', files: [{ id: ids.otherFile }] } } },
      400,
      'cannedresponse.files[0].id',
    );
    await rejects(
      one(),
      { method: 'PATCH', body: { name: 'Renamed', files: [{ id: ids.file2 }, { id: 987654321 }] } },
      400,
      'cannedresponse.files[1].id',
    );
  });

  it("answers 404 to a PATCH of another installation's canned response, which stays as it was", async () => {
    await rejects(one(ids.otherResponse), { method: 'PATCH', body: { name: 'Hijacked' } }, 404, 'id');
    await rejects(one(ids.otherResponse), { method: 'PUT', body: { name: 'Hijacked' } }, 404, 'id');
  });

  it('answers 400 naming id for a path id that is not a positive integer', async () => {
    await rejects('/v2/cannedresponses/abc.json', { method: 'PATCH', body: { name: 'x' } }, 400, 'id');
    await rejects('/v2/cannedresponses/0.json', { method: 'DELETE' }, 400, 'id');
  });

  it('answers 403 to a collaborator writing, and changes nothing', async () => {
    const collaborator = site.users.collaborator.apiKey;
    await rejects(LIST, { method: 'POST', key: collaborator, body: { name: 'x', reply: 'x' } }, 403, null);
    await rejects(one(), { method: 'PATCH', key: collaborator, body: { name: 'x' } }, 403, null);
    await rejects(one(), { method: 'DELETE', key: collaborator }, 403, null);
  });

  it('has no bulk operations (the spec lists none)', async () => {
    const before = await snapshot();
    const update = await api('/v2/cannedresponses/update.json', {
      method: 'PATCH',
      key,
      query: { filter: { id: ids.welcome } },
      body: { name: 'Bulk' },
    });
    const remove = await api('/v2/cannedresponses/delete.json', {
      method: 'DELETE',
      key,
      query: { filter: { id: ids.welcome } },
    });
    expect([400, 404]).toContain(update.status);
    expect([400, 404]).toContain(remove.status);
    expect(await snapshot()).toEqual(before);
  });
});
