import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';

let site: SeededInstallation;
let key: string;

beforeAll(async () => {
  site = await newInstallation('crud');
  key = site.users.agent.apiKey;
});

async function createCompany(company: Record<string, unknown>, query = '') {
  const response = await api(`/v2/companies.json${query}`, { method: 'POST', key, body: { company } });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

describe('create', () => {
  it('answers 201 with the wrapped record and its audit fields', async () => {
    const body = await createCompany({
      name: 'Globex',
      industry: 'Energy',
      email: 'info@globex.test',
      permission: 'own',
    });
    const company = body.company;
    expect(company).toMatchObject({
      type: 'companies',
      name: 'Globex',
      industry: 'Energy',
      email: 'info@globex.test',
      permission: 'own',
      kind: 'company',
      customersCount: 0,
      state: 'active',
      createdBy: { id: site.users.agent.id, type: 'users' },
      updatedBy: { id: site.users.agent.id, type: 'users' },
    });
    expect(Number.isInteger(company.id)).toBe(true);
    expect(company.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(company).not.toHaveProperty('deletedAt');
    expect(body.included).toEqual({});
    const [row] = await rows('SELECT name, installation_id, created_by FROM companies WHERE id = $1', [company.id]);
    expect(row).toEqual({ name: 'Globex', installation_id: site.id, created_by: site.users.agent.id });
  });

  it('accepts a bare body as well as a wrapped one', async () => {
    const response = await api('/v2/companies.json', { method: 'POST', key, body: { name: 'Bare Co' } });
    expect(response.status, response.text).toBe(201);
    expect(response.body.company.name).toBe('Bare Co');
  });

  it('creates the relations sent with it and includes them in the answer', async () => {
    const body = await createCompany({
      name: 'Initech',
      domains: [{ name: 'initech.test' }, { name: 'Initech.Example' }],
      phones: [{ number: '+1 555 0100', type: 'work', extension: '12' }],
      addresses: [{ line1: '1 Main St', city: 'Austin', country: 'US' }],
      sociallinks: [{ linkType: 'linkedin', url: 'https://linkedin.com/company/initech' }],
      timelogsettings: { billable: false, hourlyRate: 120.5, currency: 'USD' },
    });
    const company = body.company;
    expect(company.domains).toHaveLength(2);
    expect(company.timelogsettings).toEqual({ id: expect.any(Number), type: 'timelogsettings' });
    expect(body.included.domains.map((d: { name: string }) => d.name)).toEqual(['initech.test', 'initech.example']);
    expect(body.included.phones[0]).toMatchObject({ number: '+1 555 0100', type: 'work', extension: '12' });
    expect(body.included.addresses[0]).toMatchObject({
      line1: '1 Main St',
      city: 'Austin',
      country: 'US',
      line2: null,
    });
    expect(body.included.sociallinks[0]).toMatchObject({
      type: 'sociallinks',
      linkType: 'linkedin',
      url: 'https://linkedin.com/company/initech',
    });
    expect(body.included.timelogsettings[0]).toMatchObject({ billable: false, hourlyRate: 120.5, currency: 'USD' });
  });
});

describe('get', () => {
  it('reads one company, with includes on request', async () => {
    const { company } = await createCompany({ name: 'Hooli', domains: [{ name: 'hooli.test' }] });
    const plain = await api(`/v2/companies/${company.id}.json`, { key });
    expect(plain.status).toBe(200);
    expect(plain.body.company.name).toBe('Hooli');
    expect(plain.body.company).not.toHaveProperty('domains');
    expect(plain.body.included).toEqual({});

    const withDomains = await api(`/v2/companies/${company.id}.json?includes=domains`, { key });
    expect(withDomains.body.company.domains).toEqual([{ id: expect.any(Number), type: 'domains' }]);
    expect(Object.keys(withDomains.body.included)).toEqual(['domains']);

    const all = await api(`/v2/companies/${company.id}.json?includes=all`, { key });
    expect(Object.keys(all.body.included).sort()).toEqual([
      'addresses',
      'customers',
      'domains',
      'phones',
      'sociallinks',
      'timelogsettings',
    ]);
  });

  it('answers 404 with the error body for an absent id', async () => {
    const response = await api('/v2/companies/987654321.json', { key });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      errors: [{ code: 'notFound', source: 'id', detail: 'company 987654321 not found' }],
      requestId: response.headers.get('x-request-id'),
    });
  });
});

describe('update', () => {
  it('changes exactly the properties sent', async () => {
    const { company } = await createCompany({ name: 'Umbrella', industry: 'Pharma', website: 'https://umbrella.test' });
    const response = await api(`/v2/companies/${company.id}.json`, {
      method: 'PATCH',
      key: site.users.admin.apiKey,
      body: { company: { industry: 'Biotech' } },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.company).toMatchObject({
      name: 'Umbrella',
      industry: 'Biotech',
      website: 'https://umbrella.test',
      updatedBy: { id: site.users.admin.id, type: 'users' },
    });
    expect(response.body.company.createdBy).toEqual({ id: site.users.agent.id, type: 'users' });
  });

  it('accepts PUT with the meaning of PATCH, and the whole record sent back', async () => {
    const created = await createCompany({ name: 'Soylent', industry: 'Food' }, '?includes=domains');
    const sentBack = { ...created, company: { ...created.company, note: 'green' } };
    const response = await api(`/v2/companies/${created.company.id}.json`, { method: 'PUT', key, body: sentBack });
    expect(response.status, response.text).toBe(200);
    expect(response.body.company).toMatchObject({ name: 'Soylent', industry: 'Food', note: 'green' });
  });

  it('sets a nullable property to null', async () => {
    const { company } = await createCompany({ name: 'Nulled', industry: 'Gone' });
    const response = await api(`/v2/companies/${company.id}.json`, { method: 'PATCH', key, body: { industry: null } });
    expect(response.body.company.industry).toBeNull();
  });

  it('adds, changes and removes owned relations entry by entry', async () => {
    const created = await createCompany({
      name: 'Wonka',
      domains: [{ name: 'wonka.test' }, { name: 'old.test' }],
      phones: [{ number: '1' }],
    });
    const [wonka, old] = created.included.domains;
    const phone = created.included.phones[0];
    const response = await api(`/v2/companies/${created.company.id}.json`, {
      method: 'PATCH',
      key,
      body: {
        company: {
          domains: [{ id: old.id, delete: true }, { name: 'new.test' }, { id: wonka.id, type: 'domains' }],
          phones: [{ id: phone.id, number: '2' }],
          timelogsettings: null,
        },
      },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.included.domains.map((d: { name: string }) => d.name).sort()).toEqual([
      'new.test',
      'wonka.test',
    ]);
    expect(response.body.included.phones[0]).toMatchObject({ id: phone.id, number: '2' });
    const stored = await rows<{ name: string; state: string }>(
      'SELECT name, state FROM company_domains WHERE company_id = $1 ORDER BY id',
      [created.company.id],
    );
    expect(stored).toEqual([
      { name: 'wonka.test', state: 'active' },
      { name: 'old.test', state: 'deleted' },
      { name: 'new.test', state: 'active' },
    ]);
  });

  it('answers 404 for an absent id and changes nothing', async () => {
    const response = await api('/v2/companies/987654321.json', { method: 'PATCH', key, body: { name: 'Nobody' } });
    expect(response.status).toBe(404);
    expect(await rows("SELECT 1 FROM companies WHERE name = 'Nobody'")).toHaveLength(0);
  });
});

describe('customers of a company (rule 2)', () => {
  it('adds customers through the customers relation and removes them with delete: true', async () => {
    const customers = await rows<{ id: number }>(
      `INSERT INTO customers (installation_id, first_name, email) VALUES ($1, 'Ann', 'ann@x.test'), ($1, 'Bob', 'bob@x.test'), ($1, 'Cy', 'cy@x.test') RETURNING id`,
      [site.id],
    );
    const [ann, bob, cy] = customers.map((c) => c.id);
    const { company } = await createCompany({
      name: 'Members Inc',
      customers: [{ id: ann, type: 'customers' }, { id: bob }],
    });
    expect(company.customersCount).toBe(2);

    const patched = await api(`/v2/companies/${company.id}.json?includes=customers`, {
      method: 'PATCH',
      key,
      body: {
        company: { customers: [{ id: ann, type: 'customers', delete: true }, { id: cy }] },
        included: { customers: [] },
      },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.company.customersCount).toBe(2);
    expect(patched.body.company.customers.map((c: { id: number }) => c.id).sort()).toEqual([bob, cy].sort());
    expect(patched.body.included.customers.map((c: { firstName: string }) => c.firstName).sort()).toEqual([
      'Bob',
      'Cy',
    ]);
    const links = await rows<{ customer_id: number }>(
      'SELECT customer_id FROM company_customers WHERE company_id = $1 ORDER BY customer_id',
      [company.id],
    );
    expect(links.map((l) => l.customer_id)).toEqual([bob, cy].sort((a, b) => a! - b!));

    const again = await api(`/v2/companies/${company.id}.json`, {
      method: 'PATCH',
      key,
      body: { customers: [{ id: bob }] },
    });
    expect(again.body.company.customersCount).toBe(2);
  });
});

describe('delete', () => {
  it('soft-deletes: 204, then 404, gone from lists, kept in the database, and found by a state filter', async () => {
    const { company } = await createCompany({ name: 'Doomed' });
    const deleted = await api(`/v2/companies/${company.id}.json`, { method: 'DELETE', key });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api(`/v2/companies/${company.id}.json`, { key })).status).toBe(404);
    expect((await api(`/v2/companies/${company.id}.json`, { method: 'DELETE', key })).status).toBe(404);
    const list = await api('/v2/companies.json', { key, query: { filter: { id: company.id } } });
    expect(list.body.companies).toEqual([]);
    const withState = await api('/v2/companies.json', { key, query: { filter: { id: company.id, state: 'deleted' } } });
    expect(withState.body.companies).toHaveLength(1);
    expect(withState.body.companies[0]).toMatchObject({
      state: 'deleted',
      deletedBy: { id: site.users.agent.id, type: 'users' },
    });
    expect(withState.body.companies[0].deletedAt).toMatch(/Z$/);
    const [row] = await rows('SELECT state FROM companies WHERE id = $1', [company.id]);
    expect(row).toEqual({ state: 'deleted' });
  });

  it('frees the name of a deleted company', async () => {
    const { company } = await createCompany({ name: 'Phoenix' });
    await api(`/v2/companies/${company.id}.json`, { method: 'DELETE', key });
    await createCompany({ name: 'phoenix' });
  });
});

describe('bulk', () => {
  it('updates every company the filter selects and answers the bulk result', async () => {
    const a = (await createCompany({ name: 'Bulk A', industry: 'x-bulk' })).company;
    const b = (await createCompany({ name: 'Bulk B', industry: 'x-bulk' })).company;
    await createCompany({ name: 'Bulk C', industry: 'other' });
    const response = await api('/v2/companies/update.json', {
      method: 'PATCH',
      key,
      query: { filter: { industry: 'x-bulk' } },
      body: { company: { permission: 'own' } },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ affected: 2, ids: [a.id, b.id], jobId: null, dryRun: false });
    const stored = await rows<{ name: string; permission: string }>(
      `SELECT name, permission FROM companies WHERE installation_id = $1 AND name LIKE 'Bulk %' ORDER BY name`,
      [site.id],
    );
    expect(stored).toEqual([
      { name: 'Bulk A', permission: 'own' },
      { name: 'Bulk B', permission: 'own' },
      { name: 'Bulk C', permission: 'all' },
    ]);
  });

  it('deletes every company the filter selects', async () => {
    const a = (await createCompany({ name: 'Gone 1', industry: 'x-gone' })).company;
    const b = (await createCompany({ name: 'Gone 2', industry: 'x-gone' })).company;
    const response = await api('/v2/companies/delete.json', {
      method: 'DELETE',
      key,
      query: { filter: { industry: { $in: ['x-gone'] } } },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ affected: 2, ids: [a.id, b.id], jobId: null, dryRun: false });
    const again = await api('/v2/companies/delete.json', {
      method: 'DELETE',
      key,
      query: { filter: { industry: 'x-gone' } },
    });
    expect(again.body).toEqual({ affected: 0, ids: [], jobId: null, dryRun: false });
  });
});
