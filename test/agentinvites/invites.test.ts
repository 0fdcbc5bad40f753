// GET and POST /v2/agentinvites.json: a collaborator asks the owner for a seat; the list holds
// only the caller's own invites whatever the filter says; the body's `user` is ignored.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation, SeededUser } from '../../scripts/seed';
import { api, type ApiRequest } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectIgnored } from '../support/ignored';
import { ask, expectError, newUser, snapshot } from './fixtures';

let site: SeededInstallation;
let other: SeededInstallation;
const LIST = '/v2/agentinvites.json';
const AUDIT_SET = ['createdAt', 'createdBy', 'deletedAt', 'deletedBy', 'updatedAt', 'updatedBy', 'state', 'id'];
const ALLOWED = [...AUDIT_SET, 'user'];

beforeAll(async () => {
  site = await newInstallation('invites');
  other = await newInstallation('invites-other');
});

describe('POST /v2/agentinvites.json', () => {
  it('answers 201 with the singular wrapper: a pending request from the caller to the owner', async () => {
    const asker = await newUser(site.id);
    const response = await api(LIST, {
      method: 'POST',
      key: asker.apiKey,
      body: { agentinvite: { message: ' I answer the phones on Fridays ' } },
    });
    expect(response.status, response.text).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(['agentinvite', 'included']);
    const invite = response.body.agentinvite;
    expect(invite).toMatchObject({
      type: 'agentinvites',
      user: { id: asker.id, type: 'users' },
      owner: { id: site.users.owner.id, type: 'users' },
      status: 'pending',
      message: 'I answer the phones on Fridays',
      decidedAt: null,
      decidedBy: null,
      state: 'active',
      createdBy: { id: asker.id, type: 'users' },
    });
    expect(invite).not.toHaveProperty('deletedAt');
    const [row] = await rows(
      'SELECT installation_id, user_id, owner_id, status, message FROM agent_invites WHERE id = $1',
      [invite.id],
    );
    expect(row).toEqual({
      installation_id: site.id,
      user_id: asker.id,
      owner_id: site.users.owner.id,
      status: 'pending',
      message: 'I answer the phones on Fridays',
    });
  });

  it("ignores the body's user (and the other read-only properties): the caller always asks", async () => {
    const asker = await newUser(site.id);
    const response = await api(LIST, {
      method: 'POST',
      key: asker.apiKey,
      body: {
        agentinvite: {
          user: { id: site.users.collaborator.id, type: 'users' },
          owner: 1,
          status: 'accepted',
          decidedAt: '2020-01-01T00:00:00Z',
          decidedBy: null,
          id: 0,
        },
        included: {},
      },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.agentinvite).toMatchObject({
      user: { id: asker.id },
      owner: { id: site.users.owner.id },
      status: 'pending',
      decidedAt: null,
      message: null,
    });
    const bare = await api(LIST, { method: 'POST', key: (await newUser(site.id)).apiKey, body: { user: 12345 } });
    expect(bare.status, bare.text).toBe(201);
  });

  it('addresses the request to the live owner with the lowest id', async () => {
    const site2 = await newInstallation('invites-owners');
    await newUser(site2.id, 'owner');
    await rows(`UPDATE users SET state = 'deleted' WHERE id = $1`, [site2.users.owner.id]);
    const later = await rows<{ id: number }>(
      `SELECT id FROM users WHERE installation_id = $1 AND role = 'owner' AND state = 'active'`,
      [site2.id],
    );
    const invite = await ask(site2.users.collaborator);
    expect(invite.owner).toEqual({ id: later[0]!.id, type: 'users' });
  });

  it('answers with the includes asked for', async () => {
    const asker = await newUser(site.id);
    const response = await api(`${LIST}?includes=users`, { method: 'POST', key: asker.apiKey, body: {} });
    expect(response.status, response.text).toBe(201);
    expect(response.body.included.users.map((u: { id: number }) => u.id).sort()).toEqual(
      [asker.id, site.users.owner.id].sort(),
    );
  });
});

describe('POST /v2/agentinvites.json refusals', () => {
  let asker: SeededUser;
  beforeAll(async () => {
    asker = await newUser(site.id);
  });

  async function refused(request: ApiRequest, status: number, source: string | RegExp, detail?: RegExp) {
    const before = await snapshot([site.id, other.id]);
    expectError(await api(LIST, { method: 'POST', key: asker.apiKey, ...request }), status, source, detail);
    expect(await snapshot([site.id, other.id])).toEqual(before);
  }
  const raw = (text: string): ApiRequest => ({
    method: 'POST',
    body: text,
    headers: { 'content-type': 'application/json' },
  });

  it('400 to malformed JSON, no body, and bodies that are not an object', async () => {
    await refused(raw('{"agentinvite": {"message": "hi",}'), 400, 'body');
    await refused(raw(''), 400, 'body');
    await refused(raw('["hi"]'), 400, 'body');
    await refused(raw('null'), 400, 'body');
    await refused(raw('{"agentinvite": "hi"}'), 400, 'agentinvite');
  });

  it('400 to a message of the wrong type or too long', async () => {
    await refused({ body: { agentinvite: { message: 42 } } }, 400, 'agentinvite.message');
    await refused({ body: { message: { text: 'hi' } } }, 400, 'agentinvite.message');
    await refused({ body: { message: 'x'.repeat(2001) } }, 400, 'agentinvite.message');
    await refused({ body: { message: 'a\u0000b' } }, 400, 'agentinvite.message');
  });

  it('an unknown property, inside or beside the wrapper: ignored and named in X-Ignored-Properties (a role asked for grants nothing)', async () => {
    for (const [body, names] of [
      [{ agentinvite: { message: 'hi', role: 'admin' } }, ['agentinvite.role']],
      [{ seat: true }, ['agentinvite.seat']],
      [{ agentinvite: {}, extra: 1 }, ['extra']],
    ] as const) {
      const someone = await newUser(site.id);
      expectIgnored(await api(LIST, { method: 'POST', key: someone.apiKey, body }), [...names]);
      expect(await rows(`SELECT role FROM users WHERE id = $1`, [someone.id])).toEqual([{ role: 'collaborator' }]);
    }
    await refused({ body: { agentinvite: { message: 42, role: 'admin' } } }, 400, 'agentinvite.message');
  });

  it('415 to a body that is not JSON', async () => {
    await refused({ body: 'message=hi', headers: { 'content-type': 'text/plain' } }, 415, 'body');
  });

  it('409 to a teammate who already has a seat', async () => {
    for (const role of ['agent', 'admin', 'owner'] as const) {
      await refused(
        { body: {}, key: site.users[role].apiKey },
        409,
        'agentinvite.user',
        new RegExp(`already has a seat \\(role ${role}\\)`),
      );
    }
  });

  it('409 to a second request while one is pending, and one of two sent at once', async () => {
    await ask(asker);
    await refused({ body: { message: 'again' } }, 409, 'agentinvite.user', /pending/);
    const racer = await newUser(site.id);
    const answers = await Promise.all([1, 2, 3].map(() => api(LIST, { method: 'POST', key: racer.apiKey, body: {} })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    expect((await rows('SELECT id FROM agent_invites WHERE user_id = $1', [racer.id])).length).toBe(1);
  });

  it('401 without a credential', async () => {
    await refused({ body: {}, key: null }, 401, /.*/);
  });
});

describe('GET /v2/agentinvites.json', () => {
  let site3: SeededInstallation;
  let ann: SeededUser;
  let bob: SeededUser;
  const ids = { ann: 0, bob: 0, other: 0 };

  beforeAll(async () => {
    site3 = await newInstallation('invites-list');
    ann = await newUser(site3.id);
    bob = await newUser(site3.id);
    ids.ann = (await ask(ann, 'ann asks')).id;
    ids.bob = (await ask(bob, 'bob asks')).id;
    ids.other = (await ask(other.users.collaborator)).id;
  });

  const listAs = (user: SeededUser, query: ApiRequest['query'] = {}) => api(LIST, { key: user.apiKey, query });
  const idsOf = (body: { agentinvites: { id: number }[] }) => body.agentinvites.map((i) => i.id);

  it('answers 200 with the plural wrapper and meta.page', async () => {
    const response = await listAs(ann);
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['agentinvites', 'included', 'meta', 'pagination']);
    expect(response.body.meta.page).toEqual({
      page: 1,
      pageSize: 50,
      pageOffset: 0,
      count: 1,
      pages: 1,
      hasMore: false,
    });
  });

  it("holds only the requester's own invites, whatever the filter says", async () => {
    expect(idsOf((await listAs(ann)).body)).toEqual([ids.ann]);
    expect(idsOf((await listAs(bob)).body)).toEqual([ids.bob]);
    expect(idsOf((await listAs(ann, { filter: { user: bob.id } })).body)).toEqual([]);
    expect(idsOf((await listAs(ann, { filter: { id: { $in: [ids.ann, ids.bob, ids.other] } } })).body)).toEqual([
      ids.ann,
    ]);
    expect(idsOf((await listAs(ann, { filter: { $or: [{ user: bob.id }, { user: ann.id }] } })).body)).toEqual([
      ids.ann,
    ]);
  });

  it('shows the owner the requests addressed to them, and no one else any', async () => {
    expect(idsOf((await listAs(site3.users.owner)).body)).toEqual([ids.ann, ids.bob]);
    expect(idsOf((await listAs(site3.users.owner, { filter: { user: bob.id } })).body)).toEqual([ids.bob]);
    for (const role of ['admin', 'agent', 'collaborator'] as const) {
      const response = await listAs(site3.users[role], { filter: { user: { $in: [ann.id, bob.id] } } });
      expect(response.status, response.text).toBe(200);
      expect(response.body.agentinvites, role).toEqual([]);
    }
    expect(idsOf((await listAs(other.users.owner)).body)).toEqual([ids.other]);
  });

  it('accepts every filter name of part 2', async () => {
    const values: Record<string, unknown> = {
      createdAt: { $gt: '2000-01-01' },
      createdBy: ann.id,
      deletedAt: null,
      deletedBy: null,
      updatedAt: { $lte: '2999-01-01T00:00:00Z' },
      updatedBy: ann.id,
      state: 'active',
      id: ids.ann,
      user: ann.id,
    };
    expect(Object.keys(values).sort()).toEqual([...ALLOWED].sort());
    for (const [name, value] of Object.entries(values)) {
      const response = await listAs(ann, { filter: { [name]: value } });
      expect(response.status, `${name}: ${response.text}`).toBe(200);
      expect(idsOf(response.body), name).toEqual([ids.ann]);
    }
  });

  it('refuses a filter name part 2 does not list, naming it', async () => {
    for (const name of ['owner', 'status', 'message', 'decidedAt', 'userId']) {
      expectError(
        await listAs(ann, { filter: { [name]: 'x' } }),
        400,
        `filter.${name}`,
        new RegExp(`unknown field "${name}"`),
      );
    }
  });

  it('accepts every orderBy name of part 2, and refuses others', async () => {
    for (const name of ALLOWED) {
      const response = await api(`${LIST}?orderBy=${name}&orderMode=desc`, { key: site3.users.owner.apiKey });
      expect(response.status, `${name}: ${response.text}`).toBe(200);
      expect(response.body.agentinvites).toHaveLength(2);
    }
    const byUser = await api(`${LIST}?orderBy=user&orderMode=desc`, { key: site3.users.owner.apiKey });
    expect(idsOf(byUser.body)).toEqual([ids.bob, ids.ann]);
    for (const name of ['owner', 'status', 'message']) {
      expectError(await api(`${LIST}?orderBy=${name}`, { key: ann.apiKey }), 400, 'orderBy', new RegExp(`"${name}"`));
    }
  });

  it('includes=users and all put the requester and the owner in included; others are refused', async () => {
    const response = await api(`${LIST}?includes=users`, { key: site3.users.owner.apiKey });
    expect(response.status, response.text).toBe(200);
    const users = response.body.included.users as { id: number; type: string; role: string }[];
    expect(users.map((u) => u.id).sort((a, b) => a - b)).toEqual(
      [site3.users.owner.id, ann.id, bob.id].sort((a, b) => a - b),
    );
    expect(users.find((u) => u.id === ann.id)).toMatchObject({ type: 'users', role: 'collaborator' });
    const all = await api(`${LIST}?includes=all`, { key: site3.users.owner.apiKey });
    expect(all.body.included).toEqual(response.body.included);
    for (const name of ['owners', 'user', 'customers']) {
      expectError(await api(`${LIST}?includes=${name}`, { key: ann.apiKey }), 400, 'includes', new RegExp(`"${name}"`));
    }
  });

  it('reads one invite by id for the requester and the owner only', async () => {
    const mine = await api(`/v2/agentinvites/${ids.ann}.json`, { key: ann.apiKey });
    expect(mine.status, mine.text).toBe(200);
    expect(Object.keys(mine.body).sort()).toEqual(['agentinvite', 'included']);
    expect(mine.body.agentinvite).toMatchObject({ id: ids.ann, message: 'ann asks' });
    expect((await api(`/v2/agentinvites/${ids.ann}.json`, { key: site3.users.owner.apiKey })).status).toBe(200);
    for (const key of [bob.apiKey, site3.users.admin.apiKey, other.users.owner.apiKey]) {
      expectError(await api(`/v2/agentinvites/${ids.ann}.json`, { key }), 404, 'id');
    }
  });

  it('serves no update or delete', async () => {
    expect(
      (await api(`/v2/agentinvites/${ids.ann}.json`, { method: 'PATCH', key: ann.apiKey, body: { message: 'x' } }))
        .status,
    ).toBe(404);
    expect((await api(`/v2/agentinvites/${ids.ann}.json`, { method: 'DELETE', key: ann.apiKey })).status).toBe(404);
  });
});
