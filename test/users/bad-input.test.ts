// Bad input to teammates and API keys: each request gets the right 4xx naming the culprit, and
// the database (users, credentials and the events) is left exactly as it was.
import { beforeAll, describe, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { refusals } from '../support/refusals';

let site: SeededInstallation;
let other: SeededInstallation;
let theirKeyId = 0;

async function snapshot() {
  const installations = [site.id, other.id];
  return {
    users: await rows('SELECT to_jsonb(t) AS row FROM users t WHERE installation_id = ANY($1) ORDER BY id', [
      installations,
    ]),
    credentials: await rows(
      'SELECT id, state, name, user_id FROM credentials WHERE installation_id = ANY($1) ORDER BY id',
      [installations],
    ),
    events: await rows('SELECT count(*)::int AS n FROM events WHERE installation_id = ANY($1)', [installations]),
  };
}

const refused = refusals(snapshot, () => site.users.owner.apiKey);
const one = (id: number) => `/v2/users/${id}.json`;

beforeAll(async () => {
  site = await newInstallation('users-bad');
  other = await newInstallation('users-bad-other');
  theirKeyId = (await api('/v2/apikeys.json', { key: other.users.owner.apiKey })).body.apikeys[0].id;
});

describe('/v2/users.json', () => {
  it('refuses malformed, non-object and deeply nested JSON', async () => {
    await refused('/v2/users.json', { method: 'POST', body: '{"email": ' }, 400);
    await refused('/v2/users.json', { method: 'POST', body: '[1]' }, 400);
    await refused(
      one(site.users.agent.id),
      { method: 'PATCH', body: `{"user": ${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}}` },
      400,
    );
  });

  it('refuses wrong types (unknown properties beside them or not) and missing required ones, naming each', async () => {
    await refused(
      '/v2/users.json',
      { method: 'POST', body: { user: { email: 'x@bad.test', firstName: 'X', role: 'superuser' } } },
      400,
      'user.role',
    );
    await refused(
      '/v2/users.json',
      { method: 'POST', body: { user: { email: 'x@bad.test', firstName: 'X', timezoneId: '1' } } },
      400,
      'user.timezoneId',
    );
    // an unknown property (ignored alone) beside a wrong value: the 400 names the wrong one
    await refused(
      '/v2/users.json',
      { method: 'POST', body: { user: { email: 'x@bad.test', firstName: 'X', password: 'secret', role: 'root' } } },
      400,
      'user.role',
    );
    await refused('/v2/users.json', { method: 'POST', body: { user: { firstName: 'X' } } }, 400, 'user.email');
    await refused(
      '/v2/users.json',
      { method: 'POST', body: { user: { email: 'x@bad.test', firstName: '' } } },
      400,
      'user.firstName',
    );
    await refused(
      one(site.users.agent.id),
      { method: 'PUT', body: { user: { editMethod: 'wysiwyg' } } },
      400,
      'user.editMethod',
    );
    await refused(
      one(site.users.agent.id),
      { method: 'PUT', body: { user: { email: site.users.admin.email.toUpperCase() } } },
      409,
      'user.email',
    );
  });

  it('refuses unknown filter, orderBy, includes and fields names, and a page too large; has no bulk operations', async () => {
    await refused('/v2/users.json', { query: { filter: { password: 'x' } } }, 400, 'filter.password');
    await refused('/v2/users.json', { query: { orderBy: 'secret' } }, 400, 'orderBy');
    await refused('/v2/users.json', { query: { includes: 'customers' } }, 400, 'includes');
    await refused('/v2/users.json', { query: { fields: 'password' } }, 400, 'fields');
    await refused('/v2/users.json', { query: { pageSize: 1_000 } }, 400, 'pageSize');
    await refused(
      '/v2/users/update.json',
      { method: 'PATCH', query: { filter: { role: 'agent' } }, body: { role: 'admin' } },
      400,
      'id',
    );
  });

  it("answers another installation's teammate, and one that never was, as 404; a collaborator writing another as 403", async () => {
    for (const id of [other.users.agent.id, 2_000_000_000]) {
      await refused(one(id), {}, 404, 'id');
      await refused(one(id), { method: 'PATCH', body: { firstName: 'X' } }, 404, 'id');
      await refused(one(id), { method: 'DELETE' }, 404, 'id');
    }
    await refused(
      one(site.users.agent.id),
      { method: 'PATCH', body: { firstName: 'X' }, key: site.users.collaborator.apiKey },
      403,
    );
    await refused('/v2/me.json', { key: null }, 401);
    await refused('/v2/me.json', { key: 'hd_not-a-key' }, 401);
  });
});

describe('/v2/apikeys.json', () => {
  it("refuses bad bodies, another installation's key (404), and unknown names", async () => {
    await refused('/v2/apikeys.json', { method: 'POST', body: { apikey: { name: 42 } } }, 400, 'apikey.name');
    await refused(
      '/v2/apikeys.json',
      { method: 'POST', body: { apikey: { name: 'x'.repeat(101) } } },
      400,
      'apikey.name',
    );
    await refused(
      '/v2/apikeys.json',
      { method: 'POST', body: { apikey: { user: { id: 'me' } } } },
      400,
      /^apikey\.user/,
    );
    await refused('/v2/apikeys.json', { method: 'POST', body: '{' }, 400);
    await refused(`/v2/apikeys/${theirKeyId}.json`, {}, 404, 'id');
    await refused(`/v2/apikeys/${theirKeyId}.json`, { method: 'DELETE' }, 404, 'id');
    await refused('/v2/apikeys.json', { query: { filter: { secretHash: 'x' } } }, 400, 'filter.secretHash');
    await refused('/v2/apikeys.json', { query: { fields: 'secret' } }, 400, 'fields');
    await refused(`/v2/apikeys/${theirKeyId}.json`, { method: 'PATCH', body: { name: 'x' } }, 404, null);
  });
});
