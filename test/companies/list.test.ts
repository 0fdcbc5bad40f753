import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';

let site: SeededInstallation;
let key: string;
const ids: Record<string, number> = {};

async function create(company: Record<string, unknown>) {
  const response = await api('/v2/companies.json', { method: 'POST', key, body: { company } });
  expect(response.status, response.text).toBe(201);
  ids[company.name as string] = response.body.company.id;
  return response.body.company.id as number;
}

const names = (body: { companies: { name: string }[] }) => body.companies.map((c) => c.name);

beforeAll(async () => {
  site = await newInstallation('list');
  key = site.users.owner.apiKey;
  await create({
    name: 'Alpha',
    industry: 'Retail',
    email: 'a@alpha.test',
    website: 'https://alpha.test',
    details: 'big',
    permission: 'all',
    kind: 'company',
    avatarPath: '/a.png',
    domains: [{ name: 'zeta.test' }],
    phones: [{ number: '300' }],
    addresses: [{ line1: 'Z street', country: 'Sweden' }],
  });
  await create({
    name: 'Bravo',
    industry: 'Retail',
    email: 'b@bravo.test',
    permission: 'own',
    kind: 'group',
    domains: [{ name: 'alpha.test' }],
    phones: [{ number: '100' }],
    addresses: [{ line1: 'A street', country: 'Norway' }],
  });
  await create({
    name: 'Charlie',
    industry: 'Energy',
    details: 'small',
    domains: [{ name: 'middle.test' }],
    phones: [{ number: '200' }],
    addresses: [{ line1: 'M street', country: 'Austria' }],
  });
  await create({ name: 'Delta' });
  const customers = await rows<{ id: number }>(
    `INSERT INTO customers (installation_id, email) SELECT $1, 'c' || g || '@x.test' FROM generate_series(1, 3) g RETURNING id`,
    [site.id],
  );
  await api(`/v2/companies/${ids.Charlie}.json`, {
    method: 'PATCH',
    key,
    body: { customers: customers.map((c) => ({ id: c.id })) },
  });
  await api(`/v2/companies/${ids.Alpha}.json`, {
    method: 'PATCH',
    key,
    body: { customers: [{ id: customers[0]!.id }] },
  });
  const [inbox1, inbox2] = await rows<{ id: number }>(
    `INSERT INTO inboxes (installation_id, name) VALUES ($1, 'one'), ($1, 'two') RETURNING id`,
    [site.id],
  );
  await rows(`INSERT INTO company_inboxes (installation_id, company_id, inbox_id) VALUES ($1, $2, $3), ($1, $4, $5)`, [
    site.id,
    ids.Delta,
    inbox1!.id,
    ids.Alpha,
    inbox2!.id,
  ]);
});

describe('paging', () => {
  it('wraps the page as the plural with meta.page', async () => {
    const response = await api('/v2/companies.json?pageSize=3&page=2', { key });
    expect(response.status).toBe(200);
    expect(names(response.body)).toEqual(['Delta']);
    expect(response.body.meta).toEqual({
      page: { page: 2, pageSize: 3, pageOffset: 3, count: 4, pages: 2, hasMore: false },
    });
    const first = await api('/v2/companies.json?pageSize=3', { key });
    expect(first.body.meta.page).toMatchObject({ page: 1, count: 4, hasMore: true });
    expect(first.body.included).toEqual({});
  });

  it('still counts on a page past the end', async () => {
    const response = await api('/v2/companies.json?pageSize=3&page=9', { key });
    expect(response.body.companies).toEqual([]);
    expect(response.body.meta.page).toMatchObject({ page: 9, count: 4, pages: 2, hasMore: false });
  });

  it('defaults to 50 a page', async () => {
    expect((await api('/v2/companies.json', { key })).body.meta.page.pageSize).toBe(50);
  });
});

describe('filter', () => {
  const cases: [string, unknown, string[]][] = [
    ['name', { name: 'Alpha' }, ['Alpha']],
    ['name $contains, case-insensitive', { name: { $contains: 'RAV' } }, ['Bravo']],
    ['$contains treats % literally', { name: { $contains: '%' } }, []],
    ['industry $in', { industry: { $in: ['Energy', 'Nope'] } }, ['Charlie']],
    ['industry $nin keeps nulls', { industry: { $nin: ['Retail'] } }, ['Charlie', 'Delta']],
    ['industry $ne keeps nulls', { industry: { $ne: 'Retail' } }, ['Charlie', 'Delta']],
    ['industry null', { industry: null }, ['Delta']],
    ['email', { email: 'b@bravo.test' }, ['Bravo']],
    ['website', { website: { $contains: 'alpha' } }, ['Alpha']],
    ['details', { details: 'small' }, ['Charlie']],
    ['permission', { permission: 'own' }, ['Bravo']],
    ['kind', { kind: 'group' }, ['Bravo']],
    ['avatarPath', { avatarPath: '/a.png' }, ['Alpha']],
    ['customersCount $gte', { customersCount: { $gte: 1 } }, ['Alpha', 'Charlie']],
    ['customersCount $gt', { customersCount: { $gt: 2 } }, ['Charlie']],
    ['implicit $and', { industry: 'Retail', permission: 'all' }, ['Alpha']],
    ['$or', { $or: [{ name: 'Delta' }, { kind: 'group' }] }, ['Bravo', 'Delta']],
    [
      'nested $and in $or',
      { $or: [{ $and: [{ industry: 'Retail' }, { kind: 'company' }] }, { name: { $lt: 'B' } }] },
      ['Alpha'],
    ],
    ['range on one field', { name: { $gte: 'B', $lt: 'D' } }, ['Bravo', 'Charlie']],
    ['state active', { state: 'active' }, ['Alpha', 'Bravo', 'Charlie', 'Delta']],
  ];
  for (const [title, filter, expected] of cases) {
    it(title, async () => {
      const response = await api('/v2/companies.json?orderBy=name', { key, query: { filter: filter as object } });
      expect(response.status, response.text).toBe(200);
      expect(names(response.body)).toEqual(expected);
      expect(response.body.meta.page.count).toBe(expected.length);
    });
  }

  it('filters on audit fields', async () => {
    const byId = await api('/v2/companies.json', { key, query: { filter: { id: { $in: [ids.Alpha, ids.Delta] } } } });
    expect(names(byId.body)).toEqual(['Alpha', 'Delta']);
    const byCreator = await api('/v2/companies.json', { key, query: { filter: { createdBy: site.users.owner.id } } });
    expect(byCreator.body.companies).toHaveLength(4);
    const recent = await api('/v2/companies.json', {
      key,
      query: {
        filter: { createdAt: { $gt: '2000-01-01T00:00:00Z' }, updatedAt: { $lte: '2999-01-01' }, deletedAt: null },
      },
    });
    expect(recent.body.companies).toHaveLength(4);
    const nobody = await api('/v2/companies.json', { key, query: { filter: { updatedBy: 999999 } } });
    expect(nobody.body.companies).toHaveLength(0);
    const notDeleted = await api('/v2/companies.json', { key, query: { filter: { deletedBy: null } } });
    expect(notDeleted.body.companies).toHaveLength(4);
  });
});

describe('orderBy', () => {
  const cases: [string, string, string[]][] = [
    ['name', 'asc', ['Alpha', 'Bravo', 'Charlie', 'Delta']],
    ['name', 'desc', ['Delta', 'Charlie', 'Bravo', 'Alpha']],
    ['customersCount', 'desc', ['Charlie', 'Alpha', 'Delta', 'Bravo']],
    ['address', 'asc', ['Bravo', 'Charlie', 'Alpha', 'Delta']],
    ['address.country', 'asc', ['Charlie', 'Bravo', 'Alpha', 'Delta']],
    ['domains.name', 'asc', ['Bravo', 'Charlie', 'Alpha', 'Delta']],
    ['domains.id', 'desc', ['Delta', 'Charlie', 'Bravo', 'Alpha']],
    ['phones', 'asc', ['Bravo', 'Charlie', 'Alpha', 'Delta']],
    ['inboxes.id', 'asc', ['Delta', 'Alpha', 'Bravo', 'Charlie']],
    ['id', 'desc', ['Delta', 'Charlie', 'Bravo', 'Alpha']],
    ['createdAt', 'asc', ['Alpha', 'Bravo', 'Charlie', 'Delta']],
  ];
  for (const [orderBy, orderMode, expected] of cases) {
    it(`${orderBy} ${orderMode}`, async () => {
      const response = await api(`/v2/companies.json?orderBy=${orderBy}&orderMode=${orderMode}`, { key });
      expect(response.status, response.text).toBe(200);
      expect(names(response.body)).toEqual(expected);
    });
  }

  it('accepts every filter name and the extra names', async () => {
    for (const name of [
      'createdBy',
      'deletedAt',
      'deletedBy',
      'updatedAt',
      'updatedBy',
      'state',
      'avatarPath',
      'details',
      'email',
      'industry',
      'kind',
      'permission',
      'website',
    ]) {
      const response = await api(`/v2/companies.json?orderBy=${name}`, { key });
      expect(response.status, `${name}: ${response.text}`).toBe(200);
      expect(response.body.companies).toHaveLength(4);
    }
  });
});

describe('includes on a list', () => {
  it('puts each related record in included once, with references on the records', async () => {
    const response = await api('/v2/companies.json?includes=customers,domains&orderBy=name', { key });
    expect(response.status).toBe(200);
    const [alpha, , charlie, delta] = response.body.companies;
    expect(alpha.customers).toHaveLength(1);
    expect(charlie.customers).toHaveLength(3);
    expect(delta.customers).toEqual([]);
    expect(delta.domains).toEqual([]);
    // Alpha's one customer is also Charlie's: included holds it once.
    expect(response.body.included.customers).toHaveLength(3);
    expect(response.body.included.domains).toHaveLength(3);
    expect(response.body.included.customers[0]).toMatchObject({
      type: 'customers',
      email: expect.stringMatching(/@x\.test$/),
    });
    expect(alpha).not.toHaveProperty('phones');
  });

  it('includes=all names every relation', async () => {
    const response = await api('/v2/companies.json?includes=all&filter={"name":"Alpha"}', { key });
    const alpha = response.body.companies[0];
    for (const name of ['addresses', 'customers', 'domains', 'phones', 'sociallinks'])
      expect(Array.isArray(alpha[name])).toBe(true);
    expect(alpha.timelogsettings).toBeNull();
    expect(response.body.included.addresses[0]).toMatchObject({ line1: 'Z street', country: 'Sweden' });
  });
});
