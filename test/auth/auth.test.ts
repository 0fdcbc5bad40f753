// Who may call what: credentials (API keys as Bearer or Basic, OAuth access tokens), roles, and
// tenancy between installations. Observed only through requests and the rows they leave.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { addApiKey, addUser, type SeededInstallation } from '../../scripts/seed';
import { hashSecret } from '../../src/auth/secrets';
import { api, type ApiRequest, type ApiResponse } from '../support/api';
import { db, newInstallation, rows } from '../support/db';

let siteA: SeededInstallation;
let siteB: SeededInstallation;

const LIST = '/v2/companies.json';
const BULK_UPDATE = '/v2/companies/update.json';
const BULK_DELETE = '/v2/companies/delete.json';

/** Company ids of installation A, and one of B. */
const a = { acme: 0, initech: 0, gone: 0, domain: 0, customer: 0 };
const b = { own: 0 };

const client = () => db() as unknown as pg.ClientBase;
const basic = (user: string, password = '') => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** A key no request has used yet, so no cache in the Worker knows it. */
async function freshKey(
  installation: SeededInstallation,
  role: keyof SeededInstallation['users'] = 'agent',
): Promise<string> {
  return addApiKey(client(), installation.id, installation.users[role].id);
}

/** Stores an OAuth access token for the user, expiring at the given SQL expression. */
async function oauthToken(installation: SeededInstallation, userId: number, expiresAt: string): Promise<string> {
  const secret = `oat_${randomBytes(24).toString('base64url')}`;
  await rows(
    `INSERT INTO credentials (installation_id, user_id, kind, name, prefix, secret_hash, expires_at)
     VALUES ($1, $2, 'oauth_access_token', 'test app', $3, $4, ${expiresAt})`,
    [installation.id, userId, secret.slice(0, 7), await hashSecret(secret)],
  );
  return secret;
}

function expectErrorBody(response: ApiResponse, status: number, code: string) {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect(Object.keys(response.body ?? {}), response.text).toEqual(['errors', 'requestId']);
  expect(response.body.errors.length).toBeGreaterThan(0);
  for (const entry of response.body.errors) {
    expect(entry.code).toBe(code);
    expect(typeof entry.detail).toBe('string');
    expect(entry.detail.length).toBeGreaterThan(0);
    if ('source' in entry) expect(typeof entry.source).toBe('string');
  }
}

function expectUnauthorized(response: ApiResponse) {
  expectErrorBody(response, 401, 'unauthorized');
  const challenge = response.headers.get('www-authenticate');
  expect(challenge, 'WWW-Authenticate').toBeTruthy();
  expect(challenge!).toMatch(/^Bearer\b/i);
}

/** A company-list request with exactly this Authorization header (or none). */
function listWith(authorization: string | undefined): Promise<ApiResponse> {
  return api(LIST, { headers: authorization === undefined ? {} : { authorization } });
}

/** Every row of installation A the companies endpoints could change. */
async function snapshotOf(installationId: number) {
  return {
    companies: await rows(
      `SELECT id, name, industry, note, permission, state, updated_at::text, updated_by, deleted_at::text FROM companies WHERE installation_id = $1 ORDER BY id`,
      [installationId],
    ),
    domains: await rows(
      `SELECT id, company_id, name, state, updated_at::text FROM company_domains WHERE installation_id = $1 ORDER BY id`,
      [installationId],
    ),
    links: await rows(
      `SELECT company_id, customer_id FROM company_customers WHERE installation_id = $1 ORDER BY 1, 2`,
      [installationId],
    ),
  };
}

beforeAll(async () => {
  siteA = await newInstallation('auth-a');
  siteB = await newInstallation('auth-b');
  const keyA = siteA.users.agent.apiKey;
  const [customer] = await rows<{ id: number }>(
    `INSERT INTO customers (installation_id, first_name, email) VALUES ($1, 'Ann', 'ann@a.test') RETURNING id`,
    [siteA.id],
  );
  a.customer = customer!.id;
  const create = async (key: string, company: Record<string, unknown>) => {
    const response = await api(LIST, { method: 'POST', key, body: { company } });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };
  const acme = await create(keyA, {
    name: 'Acme A',
    industry: 'Anvils',
    domains: [{ name: 'acme-a.test' }],
    customers: [{ id: a.customer }],
  });
  a.acme = acme.company.id;
  a.domain = acme.included.domains[0].id;
  a.initech = (await create(keyA, { name: 'Initech A', industry: 'Software' })).company.id;
  a.gone = (await create(keyA, { name: 'Gone A' })).company.id;
  expect((await api(`/v2/companies/${a.gone}.json`, { method: 'DELETE', key: keyA })).status).toBe(204);
  b.own = (await create(siteB.users.agent.apiKey, { name: 'Own B', industry: 'Anvils' })).company.id;
});

describe('missing and invalid credentials', () => {
  it('answers 401 with WWW-Authenticate and the error body when there is no Authorization header', async () => {
    const response = await listWith(undefined);
    expectUnauthorized(response);
    expect(response.headers.get('www-authenticate')).toMatch(/Basic/);
  });

  it('answers 401 on every companies route without a key, and writes nothing', async () => {
    const before = await snapshotOf(siteA.id);
    const requests: [string, ApiRequest][] = [
      [LIST, { method: 'POST', body: { name: 'Anonymous Co' } }],
      [`/v2/companies/${a.acme}.json`, {}],
      [`/v2/companies/${a.acme}.json`, { method: 'PATCH', body: { name: 'Anonymous' } }],
      [`/v2/companies/${a.acme}.json`, { method: 'PUT', body: { name: 'Anonymous' } }],
      [`/v2/companies/${a.acme}.json`, { method: 'DELETE' }],
      [BULK_UPDATE, { method: 'PATCH', query: { filter: { id: a.acme } }, body: { name: 'Anonymous' } }],
      [BULK_DELETE, { method: 'DELETE', query: { filter: { id: a.acme } } }],
    ];
    for (const [path, request] of requests) expectUnauthorized(await api(path, request));
    expect(await snapshotOf(siteA.id)).toEqual(before);
  });

  const garbage: [string, string][] = [
    ['a garbage Bearer key', 'Bearer hd_thisIsNotAKeyThatExistsAnywhere0123456789'],
    ['Bearer without a key', 'Bearer'],
    ['Bearer and blanks', 'Bearer    '],
    ['an unknown scheme', 'Token hd_abc'],
    ['a bare value without a scheme', 'hd_abc'],
    ['Basic that is not base64', 'Basic !!!not-base64!!!'],
    ['Basic without credentials', 'Basic'],
    ['Basic with an empty user name', basic('', 'password')],
    ['Basic with an unknown user name', basic('hd_unknownKey', 'password')],
    ['Basic with base64 of no colon at all', `Basic ${Buffer.from('hd_unknownKey').toString('base64')}`],
  ];
  for (const [what, header] of garbage) {
    it(`answers 401 with WWW-Authenticate to ${what}`, async () => {
      expectUnauthorized(await listWith(header));
    });
  }

  it('answers 401 to a valid key sent raw after Basic (not base64-encoded)', async () => {
    expectUnauthorized(await listWith(`Basic ${await freshKey(siteA)}`));
  });
});

describe('valid credentials', () => {
  it('accepts an API key as Bearer', async () => {
    const response = await listWith(`Bearer ${siteA.users.agent.apiKey}`);
    expect(response.status, response.text).toBe(200);
    expect(response.body.companies.map((c: { id: number }) => c.id)).toContain(a.acme);
  });

  it('accepts the scheme name in any case', async () => {
    const key = await freshKey(siteA);
    expect((await listWith(`bearer ${key}`)).status).toBe(200);
    expect((await listWith(`BEARER ${key}`)).status).toBe(200);
  });

  it('accepts Basic with the key as user name and any password, or none', async () => {
    const key = await freshKey(siteA);
    for (const password of ['x', 'anything at all: with colons', '']) {
      const response = await listWith(basic(key, password));
      expect(response.status, `${password}: ${response.text}`).toBe(200);
      expect(response.body.companies.map((c: { id: number }) => c.id)).toContain(a.acme);
    }
  });

  it('answers with the installation of the key, whatever the scheme', async () => {
    const key = await freshKey(siteB);
    const viaBasic = await listWith(basic(key, 'pw'));
    expect(viaBasic.status).toBe(200);
    const listed: number[] = viaBasic.body.companies.map((c: { id: number }) => c.id);
    expect(listed).toContain(b.own);
    expect(listed).not.toContain(a.acme);
  });
});

describe('revoked and expired credentials', () => {
  it('answers 401 to a key whose row is revoked', async () => {
    const key = await freshKey(siteA);
    await rows(`UPDATE credentials SET state = 'deleted', deleted_at = now() WHERE secret_hash = $1`, [
      await hashSecret(key),
    ]);
    expectUnauthorized(await listWith(`Bearer ${key}`));
    expectUnauthorized(await listWith(basic(key, 'x')));
  });

  it('answers 401 to the key of a user who was removed', async () => {
    const user = await addUser(client(), siteA.id, 'agent');
    await rows(`UPDATE users SET state = 'deleted', deleted_at = now() WHERE id = $1`, [user.id]);
    expectUnauthorized(await listWith(`Bearer ${user.apiKey}`));
  });

  it('answers 401 to an expired OAuth access token', async () => {
    const token = await oauthToken(siteA, siteA.users.agent.id, `now() - interval '1 minute'`);
    expectUnauthorized(await listWith(`Bearer ${token}`));
  });

  it('accepts an OAuth access token that has not expired, as the user it belongs to', async () => {
    const token = await oauthToken(siteA, siteA.users.admin.id, `now() + interval '1 hour'`);
    const list = await listWith(`Bearer ${token}`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.companies.map((c: { id: number }) => c.id)).toContain(a.acme);
    const patched = await api(`/v2/companies/${a.initech}.json`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}` },
      body: { note: 'via oauth' },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.company.updatedBy).toEqual({ id: siteA.users.admin.id, type: 'users' });
  });

  it('answers 401 to a revoked OAuth access token that has not expired', async () => {
    const token = await oauthToken(siteA, siteA.users.agent.id, `now() + interval '1 hour'`);
    await rows(`UPDATE credentials SET state = 'deleted', deleted_at = now() WHERE secret_hash = $1`, [
      await hashSecret(token),
    ]);
    expectUnauthorized(await listWith(`Bearer ${token}`));
  });

  // The Worker remembers a valid credential for 30 s; an access token's expiry is known in
  // advance, so that memory must not outlive it.
  it('answers 401 to an OAuth access token once it has expired, even right after it was used', async () => {
    const token = await oauthToken(siteA, siteA.users.agent.id, `now() + interval '2 seconds'`);
    expect((await listWith(`Bearer ${token}`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const [row] = await rows<{ expired: boolean }>(
      `SELECT expires_at < now() AS expired FROM credentials WHERE secret_hash = $1`,
      [await hashSecret(token)],
    );
    expect(row!.expired).toBe(true);
    expectUnauthorized(await listWith(`Bearer ${token}`));
  });
});

describe('roles', () => {
  it('lets a collaborator read companies', async () => {
    const key = siteA.users.collaborator.apiKey;
    const list = await api(LIST, { key, query: { includes: 'all' } });
    expect(list.status, list.text).toBe(200);
    expect(list.body.companies.map((c: { id: number }) => c.id)).toEqual([a.acme, a.initech]);
    const one = await api(`/v2/companies/${a.acme}.json?includes=all`, { key });
    expect(one.status, one.text).toBe(200);
    expect(one.body.company.name).toBe('Acme A');
  });

  it('answers 403 with the error body to a collaborator who writes, and changes nothing', async () => {
    const key = siteA.users.collaborator.apiKey;
    const requests: [string, string, ApiRequest][] = [
      ['POST', LIST, { method: 'POST', body: { company: { name: 'Collab Co' } } }],
      ['PATCH', `/v2/companies/${a.acme}.json`, { method: 'PATCH', body: { company: { name: 'Collab' } } }],
      ['PUT', `/v2/companies/${a.acme}.json`, { method: 'PUT', body: { company: { industry: 'Collab' } } }],
      [
        'PATCH relations',
        `/v2/companies/${a.acme}.json`,
        {
          method: 'PATCH',
          body: {
            company: { domains: [{ id: a.domain, delete: true }], customers: [{ id: a.customer, delete: true }] },
          },
        },
      ],
      ['DELETE', `/v2/companies/${a.acme}.json`, { method: 'DELETE' }],
      [
        'bulk update',
        BULK_UPDATE,
        { method: 'PATCH', query: { filter: { id: a.acme } }, body: { company: { industry: 'Collab' } } },
      ],
      ['bulk delete', BULK_DELETE, { method: 'DELETE', query: { filter: { id: a.acme } } }],
    ];
    for (const [what, path, request] of requests) {
      const before = await snapshotOf(siteA.id);
      const response = await api(path, { key, ...request });
      expect(response.status, `${what}: ${response.text}`).toBe(403);
      expectErrorBody(response, 403, 'forbidden');
      expect(await snapshotOf(siteA.id), what).toEqual(before);
    }
  });

  it('lets the owner, an admin and an agent create', async () => {
    for (const role of ['owner', 'admin', 'agent'] as const) {
      const response = await api(LIST, {
        method: 'POST',
        key: siteB.users[role].apiKey,
        body: { name: `Made by ${role}` },
      });
      expect(response.status, `${role}: ${response.text}`).toBe(201);
      expect(response.body.company.createdBy).toEqual({ id: siteB.users[role].id, type: 'users' });
    }
  });
});

describe('tenancy', () => {
  const keyB = () => siteB.users.owner.apiKey;

  function expectNotFound(response: ApiResponse) {
    expectErrorBody(response, 404, 'notFound');
    expect(response.text).not.toContain('Acme A');
  }

  it("answers 404 with the error body when B reads A's company", async () => {
    expectNotFound(await api(`/v2/companies/${a.acme}.json`, { key: keyB() }));
    expectNotFound(await api(`/v2/companies/${a.acme}.json?includes=all`, { key: keyB() }));
    expectNotFound(await api(`/v2/companies/${a.gone}.json`, { key: keyB() }));
  });

  it("answers 404 when B changes or deletes A's company, and A's rows stay as they were", async () => {
    const before = await snapshotOf(siteA.id);
    const path = `/v2/companies/${a.acme}.json`;
    expectNotFound(
      await api(path, { method: 'PATCH', key: keyB(), body: { company: { name: 'Stolen', industry: 'Theft' } } }),
    );
    expectNotFound(await api(path, { method: 'PUT', key: keyB(), body: { name: 'Stolen' } }));
    expectNotFound(
      await api(path, {
        method: 'PATCH',
        key: keyB(),
        body: { company: { domains: [{ id: a.domain, delete: true }], customers: [{ id: a.customer, delete: true }] } },
      }),
    );
    expectNotFound(await api(path, { method: 'DELETE', key: keyB() }));
    expect(await snapshotOf(siteA.id)).toEqual(before);
    const [row] = await rows(`SELECT name, state FROM companies WHERE id = $1`, [a.acme]);
    expect(row).toEqual({ name: 'Acme A', state: 'active' });
  });

  it("never lists A's companies to B, whatever the filter", async () => {
    const aIds = [a.acme, a.initech, a.gone];
    const filters: unknown[] = [
      undefined,
      { id: { $in: aIds } },
      { name: 'Acme A' },
      { industry: 'Anvils' },
      { state: 'deleted' },
      { state: { $in: ['active', 'deleted'] } },
      { $or: [{ id: a.acme }, { state: 'active' }] },
      { $or: [{ id: { $in: aIds } }, { id: b.own }] },
    ];
    for (const filter of filters) {
      const response = await api(LIST, {
        key: keyB(),
        query: filter === undefined ? { includes: 'all' } : { filter: filter as object, includes: 'all' },
      });
      expect(response.status, response.text).toBe(200);
      const listed: number[] = response.body.companies.map((c: { id: number }) => c.id);
      for (const id of aIds) expect(listed, JSON.stringify(filter)).not.toContain(id);
      expect(response.body.meta.page.count, JSON.stringify(filter)).toBe(listed.length);
      expect(JSON.stringify(response.body.included)).not.toContain('acme-a.test');
      expect(JSON.stringify(response.body.included)).not.toContain('ann@a.test');
    }
  });

  it("affects none of A's companies when B bulk-updates with a filter naming them", async () => {
    const before = await snapshotOf(siteA.id);
    const aIds = [a.acme, a.initech, a.gone];
    for (const filter of [
      { id: { $in: aIds } },
      { id: a.acme },
      { name: 'Acme A' },
      { state: 'deleted', id: a.gone },
    ]) {
      const response = await api(BULK_UPDATE, {
        method: 'PATCH',
        key: keyB(),
        query: { filter },
        body: { company: { note: 'B was here' } },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body, JSON.stringify(filter)).toEqual({ affected: 0, ids: [], jobId: null, dryRun: false });
    }
    const mixed = await api(BULK_UPDATE, {
      method: 'PATCH',
      key: keyB(),
      query: { filter: { $or: [{ id: { $in: aIds } }, { id: b.own }] } },
      body: { note: 'B was here' },
    });
    expect(mixed.status, mixed.text).toBe(200);
    expect(mixed.body).toEqual({ affected: 1, ids: [b.own], jobId: null, dryRun: false });
    expect(await snapshotOf(siteA.id)).toEqual(before);
  });

  it("affects none of A's companies when B bulk-deletes with a filter naming them", async () => {
    const before = await snapshotOf(siteA.id);
    const aIds = [a.acme, a.initech];
    for (const filter of [
      { id: { $in: aIds } },
      { $or: [{ id: a.acme }, { name: 'Initech A' }] },
      { industry: { $contains: 'anvil' }, id: a.acme },
    ]) {
      const response = await api(BULK_DELETE, { method: 'DELETE', key: keyB(), query: { filter } });
      expect(response.status, response.text).toBe(200);
      expect(response.body, JSON.stringify(filter)).toEqual({ affected: 0, ids: [], jobId: null, dryRun: false });
    }
    expect(await snapshotOf(siteA.id)).toEqual(before);
    expect(await rows(`SELECT state FROM companies WHERE id = ANY($1) ORDER BY id`, [aIds])).toEqual([
      { state: 'active' },
      { state: 'active' },
    ]);
  });

  it("answers 400 when B links A's customer or touches A's domain through its own company", async () => {
    const before = await snapshotOf(siteA.id);
    const beforeB = await snapshotOf(siteB.id);
    const path = `/v2/companies/${b.own}.json`;
    const link = await api(path, {
      method: 'PATCH',
      key: keyB(),
      body: { company: { customers: [{ id: a.customer }] } },
    });
    expectErrorBody(link, 400, 'invalid');
    expect(link.body.errors[0].source).toBe('company.customers[0].id');
    const domain = await api(path, {
      method: 'PATCH',
      key: keyB(),
      body: { company: { domains: [{ id: a.domain, name: 'taken.test' }] } },
    });
    expectErrorBody(domain, 400, 'invalid');
    expect(domain.body.errors[0].source).toBe('company.domains[0].id');
    expect(await snapshotOf(siteA.id)).toEqual(before);
    expect(await snapshotOf(siteB.id)).toEqual(beforeB);
  });
});

describe('public routes and unknown routes', () => {
  it('serves the OpenAPI document without a key, and with a bad one', async () => {
    for (const headers of [{}, { authorization: 'Bearer garbage' }] as Record<string, string>[]) {
      const response = await api('/v2/openapi.json', { headers });
      expect(response.status, response.text).toBe(200);
      expect(response.headers.get('content-type') ?? '').toMatch(/json/);
      expect(typeof response.body.openapi).toBe('string');
      expect(Object.keys(response.body.paths)).toContain('/v2/companies.json');
    }
  });

  it('serves the docs page without a key', async () => {
    const response = await api('/v2/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type') ?? '').toMatch(/text\/html/);
  });

  it('answers the health check without a key', async () => {
    const response = await api('/health');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'ok' });
  });

  it('answers 404 with the error body to an unknown route', async () => {
    const key = siteA.users.agent.apiKey;
    for (const [path, request] of [
      ['/v2/nope.json', { key }],
      ['/v2/companies/1/nope.json', { key }],
      ['/v3/companies.json', { key }],
      ['/nope', {}],
    ] as [string, ApiRequest][]) {
      const response = await api(path, request);
      expectErrorBody(response, 404, 'notFound');
    }
  });
});
