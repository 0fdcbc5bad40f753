import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { DEV_PM_TOKEN_KEY } from '../../scripts/worker-vars';
import { decryptToken, encryptToken, pmTokenContext } from '../../src/lib/crypto';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { startPmServer, type PmServer } from '../support/pm-server';

let pm: PmServer;
let site: SeededInstallation;
let other: SeededInstallation;
let companyId: number;
let otherCompanyId: number;

async function company(installation: number, name: string) {
  const [row] = await rows<{ id: number }>(
    'INSERT INTO companies (installation_id, name) VALUES ($1, $2) RETURNING id',
    [installation, name],
  );
  return row!.id;
}

async function member(installation: number, company: number, email: string, state = 'active') {
  const [row] = await rows<{ id: number }>(
    `INSERT INTO customers (installation_id, first_name, last_name, email, state) VALUES ($1, 'First', 'Last', $2, $3) RETURNING id`,
    [installation, email, state],
  );
  await rows('INSERT INTO company_customers (installation_id, company_id, customer_id) VALUES ($1, $2, $3)', [
    installation,
    company,
    row!.id,
  ]);
  return row!.id;
}

const links = (installation: number) =>
  rows<{ local_type: string; local_id: number; remote_id: string; synced_at: Date }>(
    'SELECT local_type, local_id, remote_id, synced_at FROM pm_links WHERE installation_id = $1 ORDER BY local_type, local_id',
    [installation],
  );
const remoteIdOf = async (type: string, localId: number) =>
  (await links(site.id)).find((l) => l.local_type === type && l.local_id === localId)?.remote_id;
const lastSynced = async (installation: number) =>
  (
    await rows<{ last_synced_at: Date | null }>(
      'SELECT last_synced_at FROM pm_connections WHERE installation_id = $1',
      [installation],
    )
  )[0]?.last_synced_at;

const sync = (id: number, key = site.users.agent.apiKey) =>
  api(`/v2/companies/${id}/pmsync.json`, { method: 'POST', key });
const remoteEmails = () => [...pm.people.values()].map((p) => p.email.toLowerCase()).sort();

let customerA: number;
let customerB: number;

beforeAll(async () => {
  pm = await startPmServer();
  site = await newInstallation('pmsync');
  other = await newInstallation('pmsync-other');
  // set up the way an owner's PUT would, with the same helper
  const ciphertext = await encryptToken(pm.token, DEV_PM_TOKEN_KEY, pmTokenContext(site.id));
  await rows('INSERT INTO pm_connections (installation_id, base_url, token_ciphertext) VALUES ($1, $2, $3)', [
    site.id,
    pm.url,
    ciphertext,
  ]);
  companyId = await company(site.id, 'Acme Corp');
  customerA = await member(site.id, companyId, 'alice@acme.test');
  customerB = await member(site.id, companyId, 'Bob@Acme.test');
  await member(site.id, companyId, 'gone@acme.test', 'deleted');
  otherCompanyId = await company(other.id, 'Other Co');
  // Bob is already known to the product: he is linked, not created again
  pm.people.set('p-bob', { id: 'p-bob', email: 'bob@acme.test', firstName: 'Bob', lastName: 'Known' });
});

afterAll(async () => {
  await pm?.close();
});

describe('POST /v2/companies/{id}/pmsync.json', () => {
  it('the first sync creates the company and missing people remotely and stores the remote ids', async () => {
    const response = await sync(companyId);
    expect(response.status, response.text).toBe(200);
    expect(response.text).toBe('');
    expect(pm.created).toEqual({ companies: 1, people: 1 });
    const [remoteCompany] = [...pm.companies.values()];
    expect(remoteCompany!.name).toBe('Acme Corp');
    const alice = [...pm.people.values()].find((p) => p.email === 'alice@acme.test')!;
    expect(alice).toMatchObject({ firstName: 'First', lastName: 'Last' });
    expect([...pm.memberships].sort()).toEqual(
      [`${remoteCompany!.id}/${alice.id}`, `${remoteCompany!.id}/p-bob`].sort(),
    );
    expect(
      (await links(site.id)).map(({ local_type, local_id, remote_id }) => ({ local_type, local_id, remote_id })),
    ).toEqual([
      { local_type: 'companies', local_id: companyId, remote_id: remoteCompany!.id },
      { local_type: 'customers', local_id: customerA, remote_id: alice.id },
      { local_type: 'customers', local_id: customerB, remote_id: 'p-bob' },
    ]);
    expect(await lastSynced(site.id)).toBeInstanceOf(Date);
    // the token went as a Bearer token (the server refuses anything else)
  });

  it('a second sync creates nothing new remotely and reuses the stored ids', async () => {
    const before = await links(site.id);
    pm.requests.length = 0;
    const response = await sync(companyId);
    expect(response.status, response.text).toBe(200);
    expect(pm.created).toEqual({ companies: 1, people: 1 });
    expect(pm.requests.filter((r) => r.startsWith('POST'))).toEqual([]);
    expect(pm.requests).toContain(`GET /companies/${before[0]!.remote_id}`);
    const after = await links(site.id);
    expect(after.map((l) => l.remote_id)).toEqual(before.map((l) => l.remote_id));
  });

  it('a customer added later is created and linked on the next sync', async () => {
    const carol = await member(site.id, companyId, 'carol@acme.test');
    const response = await sync(companyId);
    expect(response.status, response.text).toBe(200);
    expect(pm.created).toEqual({ companies: 1, people: 2 });
    const remote = [...pm.people.values()].find((p) => p.email === 'carol@acme.test')!;
    expect(await remoteIdOf('customers', carol)).toBe(remote.id);
    expect(pm.memberships.has(`${await remoteIdOf('companies', companyId)}/${remote.id}`)).toBe(true);
  });

  it('re-creates a record the product answers 404 for, and stores the new id', async () => {
    const oldId = (await remoteIdOf('companies', companyId))!;
    pm.companies.delete(oldId);
    const response = await sync(companyId);
    expect(response.status, response.text).toBe(200);
    expect(pm.created.companies).toBe(2);
    const newId = await remoteIdOf('companies', companyId);
    expect(newId).not.toBe(oldId);
    expect(pm.companies.get(newId!)?.name).toBe('Acme Corp');
  });

  describe('when the product fails, answers the failure and leaves pm_links unchanged', () => {
    const cases = [
      { failure: 'fail', status: 502, detail: /answered 500/ },
      { failure: 'refuse', status: 502, detail: /refused the token/ },
      { failure: 'garbage', status: 502, detail: /not JSON/ },
      { failure: 'hang', status: 504, detail: /did not answer in time/ },
    ] as const;
    for (const { failure, status, detail } of cases) {
      it(`${failure} → ${status}`, async () => {
        await member(site.id, companyId, `new-${failure}@acme.test`);
        const before = await links(site.id);
        const synced = await lastSynced(site.id);
        // the first calls succeed, so the failure strikes midway
        pm.failWith(failure, 2);
        const started = Date.now();
        const response = await sync(companyId);
        pm.failWith(null);
        expect(response.status, response.text).toBe(status);
        expect(response.body.errors[0]).toMatchObject({ source: 'pmconnection' });
        expect(response.body.errors[0].detail).toMatch(detail);
        if (failure === 'hang') expect(Date.now() - started).toBeLessThan(9_000);
        expect(await links(site.id)).toEqual(before);
        expect(await lastSynced(site.id)).toEqual(synced);
      });
    }

    it('a redirect to another address is not followed: 502 saying so, and that address receives nothing, not even the token', async () => {
      const elsewhere = await startPmServer();
      try {
        await member(site.id, companyId, 'new-redirect@acme.test');
        const before = await links(site.id);
        pm.redirectTo = elsewhere.url;
        pm.failWith('redirect', 2);
        const response = await sync(companyId);
        pm.failWith(null);
        expectError(response, 502, 'pmconnection', /redirect \(307\), which is not followed/);
        expect(elsewhere.requests).toEqual([]);
        expect(elsewhere.authorizations).toEqual([]);
        expect(await links(site.id)).toEqual(before);
      } finally {
        await elsewhere.close();
      }
    });

    it('a retry afterwards completes without duplicating anything remotely', async () => {
      const response = await sync(companyId);
      expect(response.status, response.text).toBe(200);
      const emails = remoteEmails();
      expect(emails).toEqual([...new Set(emails)]);
      const local = await rows<{ id: number; email: string }>(
        `SELECT c.id, c.email FROM customers c JOIN company_customers cc ON cc.customer_id = c.id WHERE cc.company_id = $1 AND c.state = 'active'`,
        [companyId],
      );
      for (const customer of local) {
        const remote = [...pm.people.values()].find((p) => p.email.toLowerCase() === customer.email.toLowerCase());
        expect(await remoteIdOf('customers', customer.id), customer.email).toBe(remote?.id);
      }
      expect([...pm.companies.values()].filter((c) => c.name === 'Acme Corp')).toHaveLength(1);
    });
  });

  it('an unreachable product is a 502', async () => {
    const [{ base_url }] = (await rows<{ base_url: string }>(
      'SELECT base_url FROM pm_connections WHERE installation_id = $1',
      [site.id],
    )) as [{ base_url: string }];
    await rows(`UPDATE pm_connections SET base_url = 'http://127.0.0.1:9' WHERE installation_id = $1`, [site.id]);
    try {
      const before = await links(site.id);
      const response = await sync(companyId);
      expect(response.status, response.text).toBe(502);
      expect(response.body.errors[0].detail).toMatch(/could not be reached/);
      expect(await links(site.id)).toEqual(before);
    } finally {
      await rows('UPDATE pm_connections SET base_url = $2 WHERE installation_id = $1', [site.id, base_url]);
    }
  });

  it('an address stored before the destination rules, now refused, is not called: 409 naming why', async () => {
    const [{ base_url }] = (await rows<{ base_url: string }>(
      'SELECT base_url FROM pm_connections WHERE installation_id = $1',
      [site.id],
    )) as [{ base_url: string }];
    await rows(`UPDATE pm_connections SET base_url = 'https://169.254.169.254/latest' WHERE installation_id = $1`, [
      site.id,
    ]);
    try {
      const before = await links(site.id);
      const requests = pm.requests.length;
      expectError(
        await sync(companyId),
        409,
        'pmconnection',
        /refused: 169\.254\.169\.254 is a loopback, private or link-local address/,
      );
      expect(pm.requests.length).toBe(requests);
      expect(await links(site.id)).toEqual(before);
    } finally {
      await rows('UPDATE pm_connections SET base_url = $2 WHERE installation_id = $1', [site.id, base_url]);
    }
  });

  it('answers 409 when no connection is configured', async () => {
    const response = await sync(otherCompanyId, other.users.agent.apiKey);
    expect(response.status, response.text).toBe(409);
    expect(response.body.errors[0]).toMatchObject({ code: 'conflict', source: 'pmconnection' });
    expect(response.body.errors[0].detail).toMatch(/PUT \/v2\/pmconnection\.json/);
    expect(await links(other.id)).toEqual([]);
  });

  it('refuses the collaborator (403)', async () => {
    const requests = pm.requests.length;
    const response = await sync(companyId, site.users.collaborator.apiKey);
    expect(response.status, response.text).toBe(403);
    expect(pm.requests.length).toBe(requests);
  });

  it("answers 404 for another installation's company and 400 for a bad id", async () => {
    const requests = pm.requests.length;
    const foreign = await sync(otherCompanyId);
    expect(foreign.status, foreign.text).toBe(404);
    expect(foreign.body.errors[0].source).toBe('id');
    expect((await sync(0)).status).toBe(400);
    expect(pm.requests.length).toBe(requests);
    expect(await links(other.id)).toEqual([]);
  });
});

describe('the token cipher', () => {
  it("round-trips, and refuses another installation's context or key", async () => {
    const sealed = await encryptToken('secret', DEV_PM_TOKEN_KEY, pmTokenContext(1));
    expect(sealed).not.toContain('secret');
    expect(await decryptToken(sealed, DEV_PM_TOKEN_KEY, pmTokenContext(1))).toBe('secret');
    expect(await decryptToken(sealed, DEV_PM_TOKEN_KEY, pmTokenContext(2))).toBeUndefined();
    expect(await decryptToken(sealed, btoa('x'.repeat(32)), pmTokenContext(1))).toBeUndefined();
    await expect(encryptToken('secret', btoa('short'), 'c')).rejects.toThrow(/32 bytes/);
  });
});

describe('GET and PUT /v2/pmconnection.json', () => {
  let third: SeededInstallation;
  beforeAll(async () => {
    third = await newInstallation('pmconn');
  });
  const put = (body: unknown, key = third.users.admin.apiKey) =>
    api('/v2/pmconnection.json', { method: 'PUT', key, body });
  const stored = () =>
    rows('SELECT base_url, token_ciphertext FROM pm_connections WHERE installation_id = $1', [third.id]);

  it('GET answers 404 before anything is set', async () => {
    const response = await api('/v2/pmconnection.json', { key: third.users.agent.apiKey });
    expect(response.status, response.text).toBe(404);
  });

  it('refuses bad bodies and the agent, storing nothing', async () => {
    const bad: [unknown, number, string][] = [
      ['{not json', 400, 'body'],
      [{ pmconnection: { baseUrl: 'ftp://pm.test', token: 't' } }, 400, 'pmconnection.baseUrl'],
      [{ baseUrl: 'not a url', token: 't' }, 400, 'pmconnection.baseUrl'],
      [{ baseUrl: 'https://pm.test', token: 5 }, 400, 'pmconnection.token'],
      [{ baseUrl: 'https://pm.test' }, 400, 'pmconnection.token'],
      [{ baseUrl: 'https://pm.test', token: 6, colour: 'red' }, 400, 'pmconnection.token'],
    ];
    for (const [body, status, source] of bad) {
      const response = await put(body);
      expect(response.status, response.text).toBe(status);
      expect(response.body.errors.map((e: { source: string }) => e.source)).toContain(source);
    }
    expect((await put({ baseUrl: 'https://pm.test', token: 't' }, third.users.agent.apiKey)).status).toBe(403);
    expect(await stored()).toEqual([]);
  });

  it('refuses an address the token may not go to (private, loopback, link-local, a local name, credentials): 400 naming baseUrl, storing nothing', async () => {
    for (const baseUrl of [
      'https://10.0.0.1',
      'http://10.0.0.1/api',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]:8443',
      'https://[::ffff:10.0.0.1]',
      'https://192.168.1.10',
      'https://localhost:8443',
      'https://pm.internal',
      'https://user:secret@93.184.216.34',
    ]) {
      expectError(await put({ baseUrl, token: 't' }), 400, 'pmconnection.baseUrl');
    }
    expect(await stored()).toEqual([]);
  });

  it('stores the token encrypted, never answers it, and sync uses it', async () => {
    const response = await put({ pmconnection: { baseUrl: pm.url + '/', token: pm.token } });
    expect(response.status, response.text).toBe(200);
    expect(response.body.pmconnection).toMatchObject({
      type: 'pmconnections',
      baseUrl: pm.url,
      hasToken: true,
      lastSyncedAt: null,
      createdBy: { id: third.users.admin.id, type: 'users' },
    });
    expect(response.text).not.toContain(pm.token);
    const [row] = await stored();
    expect(row!.token_ciphertext).not.toContain(pm.token);
    expect(await decryptToken(row!.token_ciphertext as string, DEV_PM_TOKEN_KEY, pmTokenContext(third.id))).toBe(
      pm.token,
    );

    const id = await company(third.id, 'Third Co');
    expect((await sync(id, third.users.agent.apiKey)).status).toBe(200);
    const got = await api('/v2/pmconnection.json', { key: third.users.agent.apiKey });
    expect(got.status).toBe(200);
    expect(got.body.pmconnection.lastSyncedAt).toMatch(/Z$/);
    expect(got.text).not.toContain(pm.token);
  });

  it('a wrong token is refused by the product: 502 naming the token', async () => {
    expect((await put({ baseUrl: pm.url, token: 'wrong' })).status).toBe(200);
    const id = (await rows<{ id: number }>(`SELECT id FROM companies WHERE installation_id = $1`, [third.id]))[0]!.id;
    const response = await sync(id, third.users.agent.apiKey);
    expect(response.status, response.text).toBe(502);
    expect(response.body.errors[0].detail).toMatch(/refused the token/);
  });

  it('a new address forgets the remote ids of the old one', async () => {
    expect((await rows('SELECT 1 FROM pm_links WHERE installation_id = $1', [third.id])).length).toBeGreaterThan(0);
    const response = await put({ baseUrl: 'https://93.184.216.34', token: 't' });
    expect(response.status, response.text).toBe(200);
    expect(response.body.pmconnection.lastSyncedAt).toBeNull();
    expect(await rows('SELECT 1 FROM pm_links WHERE installation_id = $1', [third.id])).toEqual([]);
  });
});
