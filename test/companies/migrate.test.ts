import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';

let site: SeededInstallation;
let other: SeededInstallation;
const ids: Record<string, number> = {};
let existingId: number;

async function customer(installation: number, label: string, organization: string | null, state = 'active') {
  const [row] = await rows<{ id: number }>(
    'INSERT INTO customers (installation_id, first_name, email, organization, state) VALUES ($1, $2, $3, $4, $5) RETURNING id',
    [installation, label, `${label}@migrate.test`, organization, state],
  );
  ids[label] = row!.id;
}

/** The installation's companies and memberships, as rows to compare. */
async function snapshot(installation: number) {
  const companies = await rows(
    'SELECT id, name, state, created_at, updated_at, created_by, updated_by FROM companies WHERE installation_id = $1 ORDER BY id',
    [installation],
  );
  const members = await rows(
    'SELECT company_id, customer_id, installation_id, created_at FROM company_customers WHERE installation_id = $1 ORDER BY company_id, customer_id',
    [installation],
  );
  return { companies, members };
}

async function membersOf(installation: number, name: string) {
  const found = await rows<{ customer_id: number }>(
    `SELECT cc.customer_id FROM company_customers cc JOIN companies co ON co.id = cc.company_id
     WHERE co.installation_id = $1 AND co.state = 'active' AND lower(co.name) = lower($2) ORDER BY cc.customer_id`,
    [installation, name],
  );
  return found.map((r) => r.customer_id);
}

beforeAll(async () => {
  site = await newInstallation('migrate');
  other = await newInstallation('migrate-other');
  const [existing] = await rows<{ id: number }>(
    `INSERT INTO companies (installation_id, name, updated_at) VALUES ($1, 'Globex', now() - interval '1 day') RETURNING id`,
    [site.id],
  );
  existingId = existing!.id;
  await customer(site.id, 'a1', 'Acme Corp');
  await customer(site.id, 'a2', '  acme corp ');
  await customer(site.id, 'a3', 'ACME CORP\t');
  await customer(site.id, 'g1', 'globex');
  await customer(site.id, 'g2', ' GLOBEX ');
  await customer(site.id, 'i1', 'Initech');
  await customer(site.id, 'blank', '   ');
  await customer(site.id, 'none', null);
  await customer(site.id, 'gone', 'Deleted Customer Inc', 'deleted');
  await customer(other.id, 'o1', 'Acme Corp');
  await customer(other.id, 'o2', 'Umbrella');
});

describe('POST /v2/companies/migrate.json', () => {
  it('refuses the agent and the collaborator (403) and changes nothing', async () => {
    const before = await snapshot(site.id);
    for (const role of ['agent', 'collaborator'] as const) {
      const response = await api('/v2/companies/migrate.json', { method: 'POST', key: site.users[role].apiKey });
      expect(response.status, response.text).toBe(403);
      expect(response.body.errors[0].code).toBe('forbidden');
    }
    expect(await snapshot(site.id)).toEqual(before);
  });

  it('answers 200 with no body and turns organizations into companies with their customers', async () => {
    const response = await api('/v2/companies/migrate.json', { method: 'POST', key: site.users.admin.apiKey });
    expect(response.status, response.text).toBe(200);
    expect(response.text).toBe('');

    const companies = await rows<{ name: string; created_by: number }>(
      `SELECT name, created_by FROM companies WHERE installation_id = $1 AND state = 'active' ORDER BY lower(name)`,
      [site.id],
    );
    // one per name ignoring case and surrounding whitespace; the blank, null and deleted are skipped
    expect(companies.map((c) => c.name)).toEqual(['Acme Corp', 'Globex', 'Initech']);
    expect(companies.find((c) => c.name === 'Acme Corp')!.created_by).toBe(site.users.admin.id);
    expect(await membersOf(site.id, 'Acme Corp')).toEqual([ids.a1, ids.a2, ids.a3]);
    expect(await membersOf(site.id, 'Initech')).toEqual([ids.i1]);
  });

  it('joins the existing company of the same name without touching it', async () => {
    const [globex] = await rows<{ id: number; name: string; updated_by: number | null; stale: boolean }>(
      `SELECT id, name, updated_by, updated_at < now() - interval '1 hour' AS stale FROM companies WHERE installation_id = $1 AND lower(name) = 'globex'`,
      [site.id],
    );
    expect(globex).toEqual({ id: existingId, name: 'Globex', updated_by: null, stale: true });
    expect(await membersOf(site.id, 'Globex')).toEqual([ids.g1, ids.g2]);
  });

  it('changes nothing the second time', async () => {
    const before = await snapshot(site.id);
    const response = await api('/v2/companies/migrate.json', { method: 'POST', key: site.users.owner.apiKey });
    expect(response.status, response.text).toBe(200);
    expect(await snapshot(site.id)).toEqual(before);
  });

  it('adds only what is new on a later run', async () => {
    await customer(site.id, 'a4', 'acme corp');
    await customer(site.id, 'n1', 'Newco');
    const before = await snapshot(site.id);
    const response = await api('/v2/companies/migrate.json', { method: 'POST', key: site.users.owner.apiKey });
    expect(response.status, response.text).toBe(200);
    const after = await snapshot(site.id);
    expect(after.companies.slice(0, before.companies.length)).toEqual(before.companies);
    expect(after.companies).toHaveLength(before.companies.length + 1);
    expect(await membersOf(site.id, 'Acme Corp')).toEqual([ids.a1, ids.a2, ids.a3, ids.a4]);
    expect(await membersOf(site.id, 'Newco')).toEqual([ids.n1]);
  });

  it('leaves another installation untouched, then migrates it on its own', async () => {
    expect(await snapshot(other.id)).toEqual({ companies: [], members: [] });
    const response = await api('/v2/companies/migrate.json', { method: 'POST', key: other.users.owner.apiKey });
    expect(response.status, response.text).toBe(200);
    expect(await membersOf(other.id, 'Acme Corp')).toEqual([ids.o1]);
    expect(await membersOf(other.id, 'Umbrella')).toEqual([ids.o2]);
    // the first installation's Acme Corp did not gain the other's customer
    expect(await membersOf(site.id, 'Acme Corp')).not.toContain(ids.o1);
  });

  it('is reachable in the OpenAPI document', async () => {
    const { paths } = (await api('/v2/openapi.json')).body;
    expect(paths['/v2/companies/migrate.json']?.post).toBeDefined();
  });
});
