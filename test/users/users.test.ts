// Teammates: the platform's user record, /v2/me.json, who may add, change roles and deactivate
// (only an owner makes or removes an admin; the last owner stays), and API keys (secret shown
// once, listed without it, revoked at once).
import { beforeEach, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { expectIgnored } from '../support/ignored';
import { eventsSince, lastEventId, summary } from '../support/events';

let site: SeededInstallation;
let keys: { owner: string; admin: string; agent: string; collaborator: string };

beforeEach(async () => {
  site = await newInstallation('teammates');
  keys = {
    owner: site.users.owner.apiKey,
    admin: site.users.admin.apiKey,
    agent: site.users.agent.apiKey,
    collaborator: site.users.collaborator.apiKey,
  };
});

const user = (id: number) => `/v2/users/${id}.json`;
const roleOf = async (id: number) =>
  (await rows<{ role: string }>('SELECT role FROM users WHERE id = $1', [id]))[0]!.role;

describe('the user record', () => {
  it('reads as the platform has it, integers as integers, for every teammate; /v2/me.json is the caller', async () => {
    const response = await api(user(site.users.owner.id), { key: keys.collaborator, query: { includes: 'all' } });
    expect(response.status, response.text).toBe(200);
    expect(response.body.user).toMatchObject({
      type: 'users',
      email: site.users.owner.email,
      role: 'owner',
      isAppOwner: true,
      editMethod: 'html',
      isPartTime: false,
      reviewer: false,
      timezoneId: 1,
      timeFormatId: 1,
      sendPushNotifications: true,
      sendWebNotifications: true,
      autoFollowOnCC: false,
      avatarURL: null,
    });
    const me = await api('/v2/me.json', { key: keys.agent });
    expect(me.status, me.text).toBe(200);
    expect(me.body.user).toMatchObject({ id: site.users.agent.id, role: 'agent', isAppOwner: false });
    const list = await api('/v2/users.json', {
      key: keys.agent,
      query: { filter: { role: { $in: ['owner', 'admin'] } }, orderBy: 'id' },
    });
    expect(list.body.users.map((u: any) => u.role)).toEqual(['owner', 'admin']);
    expect(list.body.pagination).toMatchObject({ records: 2 });
  });

  it('lets a teammate change their own profile, not their role, and not anyone else', async () => {
    const mine = await api(user(site.users.agent.id), {
      method: 'PUT',
      key: keys.agent,
      body: {
        user: { firstName: 'Agnes', timezoneId: 1, timeFormatId: 2, editMethod: 'markdown', autoFollowOnCC: true },
      },
    });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.user).toMatchObject({
      firstName: 'Agnes',
      timeFormatId: 2,
      editMethod: 'markdown',
      autoFollowOnCC: true,
    });
    expectError(
      await api(user(site.users.agent.id), { method: 'PATCH', key: keys.agent, body: { role: 'admin' } }),
      403,
    );
    expectError(
      await api(user(site.users.admin.id), { method: 'PATCH', key: keys.agent, body: { firstName: 'Hacked' } }),
      403,
    );
    expectError(
      await api(user(site.users.agent.id), { method: 'PATCH', key: keys.agent, body: { timezoneId: 999_999 } }),
      400,
      'user.timezoneId',
    );
    expectError(
      await api(user(site.users.agent.id), { method: 'PATCH', key: keys.agent, body: { timeFormatId: 3 } }),
      400,
      'user.timeFormatId',
    );
    // sending back its own role unchanged is no change
    expect(
      (
        await api(user(site.users.agent.id), {
          method: 'PATCH',
          key: keys.agent,
          body: { role: 'agent', lastName: 'Same' },
        })
      ).status,
    ).toBe(200);
    expect(await roleOf(site.users.admin.id)).toBe('admin');
  });
});

describe('adding, changing and deactivating teammates', () => {
  it('an owner or admin adds a teammate (an agent unless named), with a created event; emails are unique', async () => {
    const mark = await lastEventId(site.id);
    const added = await api('/v2/users.json', {
      method: 'POST',
      key: keys.admin,
      body: { user: { email: 'new@team.test', firstName: 'New' } },
    });
    expect(added.status, added.text).toBe(201);
    expect(added.body.user).toMatchObject({ email: 'new@team.test', role: 'agent' });
    expect(summary(await eventsSince(site.id, mark))).toEqual(['users:created']);
    expectError(
      await api('/v2/users.json', {
        method: 'POST',
        key: keys.owner,
        body: { email: 'NEW@team.test', firstName: 'Twin' },
      }),
      409,
      'user.email',
    );
    expectError(
      await api('/v2/users.json', { method: 'POST', key: keys.agent, body: { email: 'a@team.test', firstName: 'A' } }),
      403,
    );
    expectError(
      await api('/v2/users.json', {
        method: 'POST',
        key: keys.admin,
        body: { email: 'b@team.test', firstName: 'B', role: 'admin' },
      }),
      403,
    );
    const admin = await api('/v2/users.json', {
      method: 'POST',
      key: keys.owner,
      body: { email: 'c@team.test', firstName: 'C', role: 'admin' },
    });
    expect(admin.body.user.role).toBe('admin');
  });

  it('only an owner makes or removes an admin; an admin changes agents and collaborators', async () => {
    expectError(
      await api(user(site.users.agent.id), { method: 'PATCH', key: keys.admin, body: { role: 'admin' } }),
      403,
    );
    expectError(
      await api(user(site.users.admin.id), { method: 'PATCH', key: keys.admin, body: { role: 'agent' } }),
      403,
    );
    expect(
      (await api(user(site.users.collaborator.id), { method: 'PATCH', key: keys.admin, body: { role: 'agent' } }))
        .status,
    ).toBe(200);
    expect(
      (await api(user(site.users.agent.id), { method: 'PATCH', key: keys.owner, body: { role: 'admin' } })).status,
    ).toBe(200);
    expect(await roleOf(site.users.agent.id)).toBe('admin');
    // the new role counts at once in this isolate: the new admin may add teammates
    expect(
      (
        await api('/v2/users.json', {
          method: 'POST',
          key: keys.agent,
          body: { email: 'by-new-admin@team.test', firstName: 'D' },
        })
      ).status,
    ).toBe(201);
    expectError(await api(`/v2/users/${site.users.admin.id}.json`, { method: 'DELETE', key: keys.agent }), 403);
  });

  it('the last owner cannot be demoted or removed (409); with a second owner they can', async () => {
    const owner = site.users.owner.id;
    expectError(
      await api(user(owner), { method: 'PATCH', key: keys.owner, body: { role: 'admin' } }),
      409,
      'id',
      /last owner/,
    );
    expectError(await api(user(owner), { method: 'DELETE', key: keys.owner }), 409, 'id', /last owner/);
    expect(await roleOf(owner)).toBe('owner');
    expect(
      (await api(user(site.users.admin.id), { method: 'PATCH', key: keys.owner, body: { role: 'owner' } })).status,
    ).toBe(200);
    const demoted = await api(user(owner), { method: 'PATCH', key: keys.owner, body: { role: 'admin' } });
    expect(demoted.status, demoted.text).toBe(200);
    expectError(
      await api(user(site.users.admin.id), { method: 'PATCH', key: keys.admin, body: { role: 'agent' } }),
      409,
      'id',
      /last owner/,
    );
  });

  it('deactivating a teammate stops their keys at once and frees nothing else; it is a deleted event', async () => {
    const mark = await lastEventId(site.id);
    expect((await api('/v2/me.json', { key: keys.agent })).status).toBe(200);
    expect((await api(user(site.users.agent.id), { method: 'DELETE', key: keys.admin })).status).toBe(204);
    expectError(await api('/v2/me.json', { key: keys.agent }), 401);
    expectError(await api(user(site.users.agent.id), { key: keys.admin }), 404);
    expect(summary(await eventsSince(site.id, mark))).toEqual(['users:deleted']);
    expectError(await api(user(site.users.admin.id), { method: 'DELETE', key: keys.admin }), 403);
    expectError(await api(user(site.users.collaborator.id), { method: 'DELETE', key: keys.collaborator }), 403);
  });

  it("answers another installation's teammate as 404", async () => {
    const other = await newInstallation('teammates-other');
    expectError(await api(user(other.users.agent.id), { key: keys.owner }), 404, 'id');
    expectError(
      await api(user(other.users.agent.id), { method: 'PATCH', key: keys.owner, body: { firstName: 'X' } }),
      404,
      'id',
    );
    expectError(await api(user(other.users.agent.id), { method: 'DELETE', key: keys.owner }), 404, 'id');
    expect(await roleOf(other.users.agent.id)).toBe('agent');
  });
});

describe('API keys', () => {
  it('are created with the secret shown once, listed by name and prefix, never with the secret', async () => {
    const created = await api('/v2/apikeys.json', {
      method: 'POST',
      key: keys.agent,
      body: { apikey: { name: 'CI' } },
    });
    expect(created.status, created.text).toBe(201);
    const { secret, ...key } = created.body.apikey;
    expect(secret).toMatch(/^hd_[A-Za-z0-9]{40}$/);
    expect(key).toMatchObject({
      type: 'apikeys',
      name: 'CI',
      prefix: secret.slice(0, 7),
      user: { id: site.users.agent.id, type: 'users' },
      lastUsedAt: null,
    });
    const [stored] = await rows<{ secret_hash: string }>('SELECT secret_hash FROM credentials WHERE id = $1', [key.id]);
    expect(stored!.secret_hash).not.toContain(secret);
    const me = await api('/v2/me.json', { key: secret });
    expect(me.body.user.id).toBe(site.users.agent.id);
    const list = await api('/v2/apikeys.json', { key: keys.agent, query: { orderBy: 'id' } });
    expect(list.text).not.toContain(secret);
    expect(list.body.apikeys.map((k: any) => k.name)).toEqual(['seeded', 'CI']);
    expect(list.body.apikeys.every((k: any) => k.user.id === site.users.agent.id)).toBe(true);
    const used = list.body.apikeys.find((k: any) => k.id === key.id);
    expect(used.lastUsedAt).toEqual(expect.any(String));
  });

  it("a teammate revokes their own keys, not others'; an owner revokes anyone's; a revoked key stops at once", async () => {
    const created = await api('/v2/apikeys.json', { method: 'POST', key: keys.agent, body: { name: 'temp' } });
    const { id, secret } = created.body.apikey;
    expect((await api('/v2/me.json', { key: secret })).status).toBe(200);
    expectError(await api(`/v2/apikeys/${id}.json`, { method: 'DELETE', key: keys.admin }), 404, 'id');
    expect((await api('/v2/apikeys.json', { key: keys.owner })).body.apikeys.some((k: any) => k.id === id)).toBe(true);
    const mark = await lastEventId(site.id);
    expect((await api(`/v2/apikeys/${id}.json`, { method: 'DELETE', key: keys.owner })).status).toBe(204);
    expectError(await api('/v2/me.json', { key: secret }), 401);
    expect(summary(await eventsSince(site.id, mark))).toEqual(['apikeys:deleted']);
    const own = await api('/v2/apikeys.json', { method: 'POST', key: keys.agent, body: { name: 'mine' } });
    expect((await api(`/v2/apikeys/${own.body.apikey.id}.json`, { method: 'DELETE', key: keys.agent })).status).toBe(
      204,
    );
  });

  it("an owner or admin may make a new teammate's first key; nobody else may make keys for others", async () => {
    const added = await api('/v2/users.json', {
      method: 'POST',
      key: keys.admin,
      body: { email: 'first-key@team.test', firstName: 'First' },
    });
    const key = await api('/v2/apikeys.json', {
      method: 'POST',
      key: keys.admin,
      body: { apikey: { name: 'first', user: { id: added.body.user.id } } },
    });
    expect(key.status, key.text).toBe(201);
    expect((await api('/v2/me.json', { key: key.body.apikey.secret })).body.user.id).toBe(added.body.user.id);
    expectError(
      await api('/v2/apikeys.json', {
        method: 'POST',
        key: keys.agent,
        body: { user: { id: site.users.collaborator.id } },
      }),
      403,
    );
    // an admin may not mint the power of an owner or another admin
    const before = await rows('SELECT count(*)::int AS n FROM credentials WHERE installation_id = $1', [site.id]);
    expectError(
      await api('/v2/apikeys.json', { method: 'POST', key: keys.admin, body: { user: { id: site.users.owner.id } } }),
      403,
    );
    const otherAdmin = await api('/v2/users.json', {
      method: 'POST',
      key: keys.owner,
      body: { email: 'admin2@team.test', firstName: 'A2', role: 'admin' },
    });
    expectError(
      await api('/v2/apikeys.json', {
        method: 'POST',
        key: keys.admin,
        body: { user: { id: otherAdmin.body.user.id } },
      }),
      403,
    );
    expect(await rows('SELECT count(*)::int AS n FROM credentials WHERE installation_id = $1', [site.id])).toEqual(
      before,
    );
    expect(
      (
        await api('/v2/apikeys.json', {
          method: 'POST',
          key: keys.owner,
          body: { user: { id: otherAdmin.body.user.id } },
        })
      ).status,
    ).toBe(201);
    const other = await newInstallation('teammates-keys-other');
    expectError(
      await api('/v2/apikeys.json', { method: 'POST', key: keys.owner, body: { user: { id: other.users.agent.id } } }),
      400,
      'apikey.user',
    );
    // a secret sent back is read-only, ignored: the key's secret is always a new random one
    const chosen = await api('/v2/apikeys.json', {
      method: 'POST',
      key: keys.owner,
      body: { secret: 'hd_mine', name: 'chosen' },
    });
    expect(chosen.body.apikey.secret).not.toBe('hd_mine');
    // an unknown property is ignored and named; beside a wrong value, the 400 names that one
    expectIgnored(
      await api('/v2/apikeys.json', { method: 'POST', key: keys.owner, body: { name: 'x', colour: 'red' } }),
      ['apikey.colour'],
    );
    expectError(
      await api('/v2/apikeys.json', { method: 'POST', key: keys.owner, body: { name: 5, colour: 'red' } }),
      400,
      'apikey.name',
    );
  });
});
