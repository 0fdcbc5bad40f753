// Bad input to the companies endpoints: every request below must answer the right 4xx with the
// one error body naming the culprit, and must leave the database exactly as it was. Read-only
// properties a client sends back must be accepted and ignored.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api, type ApiRequest, type ApiResponse } from '../support/api';
import { checkAnswer } from '../support/contract';
import { newInstallation, rows } from '../support/db';
import { expectError as expectErrorBody } from '../support/errors';
import { expectIgnored } from '../support/ignored';

let site: SeededInstallation;
let other: SeededInstallation;
let key: string;

/** Fixtures: ids of records the bad requests aim at. */
const ids = {
  acme: 0,
  acmeDomain: 0,
  globex: 0,
  globexDomain: 0,
  customer: 0,
  deletedCustomer: 0,
  otherCompany: 0,
  otherDomain: 0,
  otherCustomer: 0,
};

const CHILD_TABLES = [
  'company_domains',
  'company_phones',
  'company_addresses',
  'company_social_links',
  'company_timelog_settings',
] as const;

/**
 * Everything the companies endpoints can write, for both installations: the counts the brief
 * names, plus every row, so that an update that should not have happened shows up too.
 */
async function snapshot() {
  const installations = [site.id, other.id];
  const count = async (table: string) =>
    (
      await rows<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE installation_id = ANY($1)`, [
        installations,
      ])
    )[0]!.n;
  const counts: Record<string, number> = {
    companies: await count('companies'),
    company_customers: await count('company_customers'),
  };
  for (const table of CHILD_TABLES) counts[table] = await count(table);
  const companies = await rows(
    `SELECT id, installation_id, name, description, details, industry, website, email, permission, kind, note, avatar_path,
            state, updated_at::text, updated_by, deleted_at::text
       FROM companies WHERE installation_id = ANY($1) ORDER BY id`,
    [installations],
  );
  const children: Record<string, unknown[]> = {};
  for (const table of CHILD_TABLES) {
    children[table] = await rows(
      `SELECT to_jsonb(t) AS row FROM ${table} t WHERE installation_id = ANY($1) ORDER BY id`,
      [installations],
    );
  }
  const links = await rows(
    `SELECT company_id, customer_id FROM company_customers WHERE installation_id = ANY($1) ORDER BY 1, 2`,
    [installations],
  );
  return { counts, companies, children, links };
}

interface ErrorEntry {
  code: string;
  source?: string;
  detail: string;
}

/** Sends the request and checks the status, the error body and that nothing changed. */
async function rejects(
  path: string,
  request: ApiRequest,
  status: number,
  source: string | RegExp,
): Promise<ErrorEntry> {
  const before = await snapshot();
  const response = await api(path, { key, ...request });
  const entry = expectErrorBody(response, status, source);
  expect(await snapshot()).toEqual(before);
  return entry;
}

const one = () => `/v2/companies/${ids.globex}.json`;
const LIST = '/v2/companies.json';
const BULK_UPDATE = '/v2/companies/update.json';
const BULK_DELETE = '/v2/companies/delete.json';

beforeAll(async () => {
  site = await newInstallation('bad-input');
  other = await newInstallation('bad-input-other');
  key = site.users.agent.apiKey;

  const [customer, deletedCustomer] = await rows<{ id: number }>(
    `INSERT INTO customers (installation_id, first_name, email, state) VALUES ($1, 'Cat', 'cat@bad.test', 'active'), ($1, 'Del', 'del@bad.test', 'deleted') RETURNING id`,
    [site.id],
  );
  const [otherCustomer] = await rows<{ id: number }>(
    `INSERT INTO customers (installation_id, first_name, email) VALUES ($1, 'Oz', 'oz@other.test') RETURNING id`,
    [other.id],
  );
  ids.customer = customer!.id;
  ids.deletedCustomer = deletedCustomer!.id;
  ids.otherCustomer = otherCustomer!.id;

  const create = async (apiKey: string, company: Record<string, unknown>) => {
    const response = await api(LIST, { method: 'POST', key: apiKey, body: { company } });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };
  const acme = await create(key, { name: 'Acme', domains: [{ name: 'acme.test' }], customers: [{ id: ids.customer }] });
  ids.acme = acme.company.id;
  ids.acmeDomain = acme.included.domains[0].id;
  const globex = await create(key, { name: 'Globex', industry: 'Energy', domains: [{ name: 'globex.test' }] });
  ids.globex = globex.company.id;
  ids.globexDomain = globex.included.domains[0].id;
  const otherCompany = await create(other.users.agent.apiKey, {
    name: 'Other Co',
    domains: [{ name: 'other.test' }],
    customers: [{ id: ids.otherCustomer }],
  });
  ids.otherCompany = otherCompany.company.id;
  ids.otherDomain = otherCompany.included.domains[0].id;
});

describe('bodies that are not a JSON object', () => {
  const writes = (): { name: string; path: string; method: string; query: Record<string, object> }[] => [
    { name: 'POST', path: LIST, method: 'POST', query: {} },
    { name: 'PATCH', path: one(), method: 'PATCH', query: {} },
    { name: 'PUT', path: one(), method: 'PUT', query: {} },
    { name: 'bulk update', path: BULK_UPDATE, method: 'PATCH', query: { filter: { id: ids.globex } } },
  ];
  const bodies: [string, string, string][] = [
    ['malformed JSON', '{"company": {"name": "Broken",}', 'body'],
    ['truncated JSON', '{"company": {"name": "Broken"', 'body'],
    ['an empty body', '', 'body'],
    ['a JSON array', '[{"name": "Listed"}]', 'body'],
    ['a JSON string', '"Acme"', 'body'],
    ['a JSON number', '42', 'body'],
    ['JSON null', 'null', 'body'],
    ['a wrapper holding an array', '{"company": [{"name": "Listed"}]}', 'company'],
    ['a wrapper holding a string', '{"company": "Named"}', 'company'],
    ['a wrapper holding null', '{"company": null}', 'company'],
  ];
  for (const [what, text, source] of bodies) {
    it(`answers 400 to ${what} on POST, PATCH, PUT and bulk update`, async () => {
      for (const target of writes()) {
        // An empty string would make the helper send no body at all; send it as raw text.
        await rejects(
          target.path,
          { method: target.method, query: target.query, body: text, headers: { 'content-type': 'application/json' } },
          400,
          source,
        );
      }
    });
  }
});

describe('properties of the wrong type', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['name: 123', { name: 123 }, 'company.name'],
    ['name: null', { name: null }, 'company.name'],
    ['name: true', { name: true }, 'company.name'],
    ['an empty name', { name: '' }, 'company.name'],
    ['a name of blanks only', { name: '   ' }, 'company.name'],
    ['a name over 255 characters', { name: 'n'.repeat(256) }, 'company.name'],
    ["permission: 'nobody'", { permission: 'nobody' }, 'company.permission'],
    ['permission: null', { permission: null }, 'company.permission'],
    ['kind: 5', { kind: 5 }, 'company.kind'],
    ["kind: 'person'", { kind: 'person' }, 'company.kind'],
    ["email: 'not-an-email'", { email: 'not-an-email' }, 'company.email'],
    ['email: 7', { email: 7 }, 'company.email'],
    ['industry: []', { industry: [] }, 'company.industry'],
    ['website: {}', { website: {} }, 'company.website'],
  ];
  for (const [what, properties, source] of cases) {
    it(`answers 400 naming ${source} for ${what}`, async () => {
      await rejects(LIST, { method: 'POST', body: { company: { name: 'Typed Co', ...properties } } }, 400, source);
      await rejects(one(), { method: 'PATCH', body: { company: properties } }, 400, source);
      await rejects(one(), { method: 'PUT', body: properties }, 400, source);
      await rejects(
        BULK_UPDATE,
        { method: 'PATCH', query: { filter: { id: ids.globex } }, body: { company: properties } },
        400,
        source,
      );
    });
  }

  it('names every property at fault, not only the first', async () => {
    const before = await snapshot();
    const response = await api(LIST, {
      method: 'POST',
      key,
      body: { company: { name: 123, permission: 'nobody', email: 'nope' } },
    });
    expectErrorBody(response, 400, 'company.name');
    expectErrorBody(response, 400, 'company.permission');
    expectErrorBody(response, 400, 'company.email');
    expect(await snapshot()).toEqual(before);
  });

  it('answers 400 naming the relation for a relation of the wrong shape', async () => {
    await rejects(
      LIST,
      { method: 'POST', body: { company: { name: 'Shapeless', domains: { name: 'a.test' } } } },
      400,
      'company.domains',
    );
    await rejects(one(), { method: 'PATCH', body: { company: { domains: 'globex.test' } } }, 400, 'company.domains');
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { customers: [ids.customer] } } },
      400,
      'company.customers[0]',
    );
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { customers: [{ id: 'one' }] } } },
      400,
      'company.customers[0].id',
    );
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { domains: [{ name: 'not a domain' }] } } },
      400,
      'company.domains[0].name',
    );
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { domains: [{ name: 'ok.test' }, { name: 42 }] } } },
      400,
      'company.domains[1].name',
    );
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { timelogsettings: { currency: 'euro' } } } },
      400,
      'company.timelogsettings.currency',
    );
    await rejects(
      one(),
      {
        method: 'PATCH',
        body: { company: { domains: Array.from({ length: 101 }, (_, i) => ({ name: `d${i}.test` })) } },
      },
      400,
      'company.domains',
    );
  });

  // Postgres text cannot hold NUL; the filter parameter already refuses it (400 naming filter.name).
  it('answers 400, not 500, to a NUL character in a name on create', async () => {
    await rejects(LIST, { method: 'POST', body: { company: { name: 'Nul\u0000Co' } } }, 400, 'company.name');
  });

  it('answers 400, not 500, to a NUL character in a property on PATCH, bulk update and in a relation entry', async () => {
    await rejects(one(), { method: 'PATCH', body: { company: { industry: 'a\u0000b' } } }, 400, 'company.industry');
    await rejects(
      BULK_UPDATE,
      { method: 'PATCH', query: { filter: { id: ids.globex } }, body: { company: { note: 'a\u0000b' } } },
      400,
      'company.note',
    );
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { phones: [{ number: '1\u00002' }] } } },
      400,
      'company.phones[0].number',
    );
  });
});

describe('unknown properties', () => {
  it('are ignored and named (X-Ignored-Properties), wrapped or bare, beside the wrapper and inside relation entries; nothing of them is stored', async () => {
    const made = await api(LIST, {
      method: 'POST',
      key,
      body: { company: { name: 'Unknown Co', nope: 1, domains: [{ name: 'deep.test', nope: 1 }] }, beside: {} },
    });
    expectIgnored(made, ['beside', 'company.domains[0].nope', 'company.nope']);
    const id = made.body.company.id as number;
    expectIgnored(await api(LIST, { method: 'POST', key, body: { name: 'Unknown Bare Co', nope: 1 } }), [
      'company.nope',
    ]);
    expectIgnored(
      await api(`/v2/companies/${id}.json`, {
        method: 'PATCH',
        key,
        body: {
          company: { industry: 'x', domains: [{ name: 'ok.test' }, { name: 'deeper.test', nope: 1 }] },
          nope: {},
        },
      }),
      ['company.domains[1].nope', 'nope'],
    );
    expectIgnored(
      await api(`/v2/companies/${id}.json`, {
        method: 'PUT',
        key,
        body: { industry: 'y', nope: null, customers: [{ id: ids.customer, nope: 1 }] },
      }),
      ['company.customers[0].nope', 'company.nope'],
    );
    expectIgnored(
      await api(`/v2/companies/${id}.json`, {
        method: 'PATCH',
        key,
        body: { company: { timelogsettings: { billable: true, nope: 1 }, phones: [{ number: '1', nope: 1 }] } },
      }),
      ['company.phones[0].nope', 'company.timelogsettings.nope'],
    );
    expectIgnored(
      await api(BULK_UPDATE, {
        method: 'PATCH',
        key,
        query: { filter: { id } },
        body: { company: { industry: 'z', nope: 1 } },
      }),
      ['company.nope'],
    );
    const [company] = await rows<{ industry: string }>(`SELECT industry FROM companies WHERE id = $1`, [id]);
    expect(company).toEqual({ industry: 'z' });
    expect(
      (await rows(`SELECT name FROM company_domains WHERE company_id = $1 ORDER BY name`, [id])).map((row) => row.name),
    ).toEqual(['deep.test', 'deeper.test', 'ok.test']);
    expect(JSON.stringify(await snapshot())).not.toContain('nope');
  });

  it('answers 400 to relations in a bulk update, which sets plain properties only', async () => {
    await rejects(
      BULK_UPDATE,
      {
        method: 'PATCH',
        query: { filter: { id: ids.globex } },
        body: { company: { domains: [{ name: 'bulk.test' }] } },
      },
      400,
      'company.domains',
    );
  });
});

describe('missing required properties', () => {
  it('answers 400 naming company.name when a company is created without a name', async () => {
    const entry = await rejects(
      LIST,
      { method: 'POST', body: { company: { industry: 'Nameless' } } },
      400,
      'company.name',
    );
    expect(entry.detail).toBe('must be set');
    await rejects(LIST, { method: 'POST', body: { company: {} } }, 400, 'company.name');
    await rejects(LIST, { method: 'POST', body: {} }, 400, 'company.name');
  });

  it('answers 400 naming the domain entry without a name, and creates nothing (not even the company)', async () => {
    const entry = await rejects(
      LIST,
      { method: 'POST', body: { company: { name: 'Half Co', domains: [{ name: 'half.test' }, {}] } } },
      400,
      'company.domains[1].name',
    );
    expect(entry.detail).toBe('must be set');
    expect(await rows(`SELECT 1 FROM companies WHERE installation_id = $1 AND name = 'Half Co'`, [site.id])).toEqual(
      [],
    );
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { domains: [{ type: 'domains' }] } } },
      400,
      'company.domains[0].name',
    );
  });

  it('rolls back the relations written before the failing one', async () => {
    await rejects(
      LIST,
      {
        method: 'POST',
        body: {
          company: { name: 'Rollback Co', addresses: [{ city: 'Oslo' }], phones: [{ number: '1' }], domains: [{}] },
        },
      },
      400,
      'company.domains[0].name',
    );
    await rejects(
      one(),
      {
        method: 'PATCH',
        body: {
          company: {
            name: 'Globex Renamed',
            addresses: [{ city: 'Oslo' }],
            domains: [{ name: 'fine.test' }, { name: null }],
          },
        },
      },
      400,
      'company.domains[1].name',
    );
    await rejects(
      one(),
      {
        method: 'PATCH',
        body: { company: { industry: 'Changed', addresses: [{ city: 'Oslo' }], domains: [{ name: 'fine.test' }, {}] } },
      },
      400,
      'company.domains[1].name',
    );
  });

  it('answers 400 to a domain entry marked delete without an id', async () => {
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { domains: [{ name: 'x.test', delete: true }] } } },
      400,
      'company.domains[0].delete',
    );
  });

  it('answers 400 naming the entry of a customer without an id', async () => {
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { customers: [{ type: 'customers' }] } } },
      400,
      'company.customers[0].id',
    );
  });
});

describe('customers that cannot be linked', () => {
  it('answers 400 naming company.customers[0].id for a customer that does not exist', async () => {
    await rejects(
      LIST,
      { method: 'POST', body: { company: { name: 'Ghost Co', customers: [{ id: 987654321 }] } } },
      400,
      'company.customers[0].id',
    );
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { customers: [{ id: 987654321, type: 'customers' }] } } },
      400,
      'company.customers[0].id',
    );
  });

  it('answers 400 naming company.customers[0].id for a customer of another installation', async () => {
    await rejects(
      LIST,
      { method: 'POST', body: { company: { name: 'Poacher Co', customers: [{ id: ids.otherCustomer }] } } },
      400,
      'company.customers[0].id',
    );
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { customers: [{ id: ids.otherCustomer }] } } },
      400,
      'company.customers[0].id',
    );
    await rejects(
      one(),
      { method: 'PUT', body: { customers: [{ id: ids.otherCustomer }] } },
      400,
      'company.customers[0].id',
    );
  });

  it('answers 400 for a deleted customer', async () => {
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { customers: [{ id: ids.deletedCustomer }] } } },
      400,
      'company.customers[0].id',
    );
  });

  it('names the offending entry and links none of the good ones, nor applies the rest of the body', async () => {
    await rejects(
      one(),
      {
        method: 'PATCH',
        body: { company: { name: 'Globex Two', customers: [{ id: ids.customer }, { id: ids.otherCustomer }] } },
      },
      400,
      'company.customers[1].id',
    );
  });

  it('answers 400 to customer ids that are not positive integers', async () => {
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { customers: [{ id: 0 }] } } },
      400,
      'company.customers[0].id',
    );
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { customers: [{ id: -3 }] } } },
      400,
      'company.customers[0].id',
    );
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { customers: [{ id: 1.5 }] } } },
      400,
      'company.customers[0].id',
    );
  });

  // Path ids and filter values beyond the int4 range are handled (400 / no match); entry ids are not.
  it('answers 400, not 500, to a customer id beyond the integer range, linked or unlinked', async () => {
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { customers: [{ id: 3_000_000_000 }] } } },
      400,
      'company.customers[0].id',
    );
    await rejects(
      LIST,
      { method: 'POST', body: { company: { name: 'Range Co', customers: [{ id: 3_000_000_000 }] } } },
      400,
      'company.customers[0].id',
    );
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { customers: [{ id: 3_000_000_000, delete: true }] } } },
      400,
      'company.customers[0].id',
    );
  });
});

describe('domain entries that belong elsewhere', () => {
  it('answers 400 to deleting a domain of another company, and that domain stays', async () => {
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { domains: [{ id: ids.acmeDomain, delete: true }] } } },
      400,
      'company.domains[0].id',
    );
    await rejects(
      one(),
      {
        method: 'PUT',
        body: { domains: [{ id: ids.globexDomain }, { id: ids.acmeDomain, type: 'domains', delete: true }] },
      },
      400,
      'company.domains[1].id',
    );
    const [row] = await rows(`SELECT company_id, state FROM company_domains WHERE id = $1`, [ids.acmeDomain]);
    expect(row).toEqual({ company_id: ids.acme, state: 'active' });
  });

  it('answers 400 to renaming a domain of another company or of another installation', async () => {
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { domains: [{ id: ids.acmeDomain, name: 'hijacked.test' }] } } },
      400,
      'company.domains[0].id',
    );
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { domains: [{ id: ids.otherDomain, name: 'hijacked.test' }] } } },
      400,
      'company.domains[0].id',
    );
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { domains: [{ id: ids.otherDomain, delete: true }] } } },
      400,
      'company.domains[0].id',
    );
  });

  it('answers 400 to a domain id that does not exist', async () => {
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { domains: [{ id: 987654321, delete: true }] } } },
      400,
      'company.domains[0].id',
    );
  });

  it('answers 400, not 500, to a domain id beyond the integer range', async () => {
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { domains: [{ id: 3_000_000_000, delete: true }] } } },
      400,
      'company.domains[0].id',
    );
    await rejects(
      one(),
      { method: 'PATCH', body: { company: { domains: [{ id: 3_000_000_000, name: 'range.test' }] } } },
      400,
      'company.domains[0].id',
    );
  });
});

describe('duplicate names', () => {
  it('answers 409 naming company.name to a new company named like an existing one, ignoring case and blanks', async () => {
    for (const name of ['Acme', 'ACME', 'aCmE', '  acme  ']) {
      const entry = await rejects(LIST, { method: 'POST', body: { company: { name } } }, 409, 'company.name');
      expect(entry.code).toBe('conflict');
    }
  });

  it('answers 409 to a rename onto an existing name, by PATCH and PUT', async () => {
    await rejects(one(), { method: 'PATCH', body: { company: { name: 'acme' } } }, 409, 'company.name');
    await rejects(
      one(),
      { method: 'PUT', body: { name: 'ACME', domains: [{ name: 'renamed.test' }] } },
      409,
      'company.name',
    );
  });

  it('answers 409 to a bulk update that would give a company an existing name', async () => {
    await rejects(
      BULK_UPDATE,
      { method: 'PATCH', query: { filter: { id: ids.globex } }, body: { company: { name: 'Acme' } } },
      409,
      'company.name',
    );
    await rejects(
      BULK_UPDATE,
      { method: 'PATCH', query: { filter: { id: ids.globex } }, body: { name: 'acme' } },
      409,
      'company.name',
    );
  });

  it('answers 409 to a bulk update that would give two companies the same name', async () => {
    await rejects(
      BULK_UPDATE,
      {
        method: 'PATCH',
        query: { filter: { id: { $in: [ids.acme, ids.globex] } } },
        body: { company: { name: 'Twins' } },
      },
      409,
      'company.name',
    );
  });

  it('lets another installation use the same name', async () => {
    const response = await api(LIST, {
      method: 'POST',
      key: other.users.agent.apiKey,
      body: { company: { name: 'acme' } },
    });
    expect(response.status, response.text).toBe(201);
  });
});

describe('filter', () => {
  const targets = () => [
    { name: 'list', path: LIST, method: 'GET' },
    { name: 'bulk update', path: BULK_UPDATE, method: 'PATCH', body: { company: { industry: 'Filtered' } } },
    { name: 'bulk delete', path: BULK_DELETE, method: 'DELETE' },
  ];
  const cases: [string, string, string | RegExp, ((entry: ErrorEntry) => void)?][] = [
    ['an unknown name', '{"nope": 1}', 'filter.nope'],
    ['an unknown name under $or', '{"$or": [{"name": "Acme"}, {"nope": 1}]}', 'filter.nope'],
    ['a name allowed in orderBy only', '{"domains.name": "acme.test"}', 'filter.domains.name'],
    ['a writable property not listed for filter', '{"note": "x"}', 'filter.note'],
    ['the unknown operator $nor', '{"$nor": [{"name": "Acme"}]}', /^filter/, (e) => expect(e.detail).toContain('$nor')],
    [
      'the unknown operator $regex',
      '{"name": {"$regex": "^A"}}',
      'filter.name',
      (e) => expect(e.detail).toContain('$regex'),
    ],
    ['the unknown operator $where', '{"$where": "1=1"}', /^filter/, (e) => expect(e.detail).toContain('$where')],
    ['JSON that does not parse', '{name: Acme}', 'filter'],
    ['a truncated JSON object', '{"name": "Acme"', 'filter'],
    ['a JSON array', '[{"name": "Acme"}]', 'filter'],
    ['a JSON string', '"Acme"', 'filter'],
    ['a value of the wrong type', '{"customersCount": "many"}', 'filter.customersCount'],
    ['a value outside an enum', '{"permission": "nobody"}', 'filter.permission'],
    ['a date that is not a date', '{"createdAt": {"$gt": "yesterday"}}', 'filter.createdAt'],
    ['$in without a list', '{"id": {"$in": 5}}', 'filter.id'],
    ['$contains on a number', '{"customersCount": {"$contains": "1"}}', 'filter.customersCount'],
    ['an empty $or', '{"$or": []}', /^filter/],
  ];
  for (const [what, filter, source, more] of cases) {
    it(`answers 400 naming ${String(source)} for ${what}`, async () => {
      for (const target of targets()) {
        const entry = await rejects(
          target.path,
          { method: target.method, body: target.body, query: { filter } },
          400,
          source,
        );
        more?.(entry);
      }
    });
  }
});

describe('bulk operations without a real filter', () => {
  const filters: [string, Record<string, string>][] = [
    ['no filter', {}],
    ['an empty filter parameter', { filter: '' }],
    ['the filter {}', { filter: '{}' }],
    ['an $and of one empty object', { filter: '{"$and": [{}]}' }],
    ['an $or of one empty object', { filter: '{"$or": [{}]}' }],
  ];
  for (const [what, query] of filters) {
    it(`answers 400 naming filter to bulk update and bulk delete with ${what}`, async () => {
      await rejects(
        BULK_UPDATE,
        { method: 'PATCH', query, body: { company: { industry: 'Everything' } } },
        400,
        'filter',
      );
      await rejects(BULK_DELETE, { method: 'DELETE', query }, 400, 'filter');
    });
  }

  it('answers 400 naming the record to a bulk update that sets nothing', async () => {
    await rejects(
      BULK_UPDATE,
      { method: 'PATCH', query: { filter: { id: ids.globex } }, body: { company: {} } },
      400,
      'company',
    );
    await rejects(
      BULK_UPDATE,
      {
        method: 'PATCH',
        query: { filter: { id: ids.globex } },
        body: { company: { id: ids.globex, type: 'companies' } },
      },
      400,
      'company',
    );
  });
});

describe('list parameters', () => {
  const cases: [string, Record<string, string>, string][] = [
    ['an unlisted orderBy name', { orderBy: 'nope' }, 'orderBy'],
    ['orderBy a writable property not listed', { orderBy: 'note' }, 'orderBy'],
    ['orderBy a relation name', { orderBy: 'customers' }, 'orderBy'],
    ["orderMode 'sideways'", { orderMode: 'sideways' }, 'orderMode'],
    ["orderMode 'sideways' with a valid orderBy", { orderBy: 'name', orderMode: 'sideways' }, 'orderMode'],
    ['pageSize 0', { pageSize: '0' }, 'pageSize'],
    ['pageSize 101', { pageSize: '101' }, 'pageSize'],
    ['pageSize 1000', { pageSize: '1000' }, 'pageSize'],
    ['pageSize -1', { pageSize: '-1' }, 'pageSize'],
    ['pageSize 1.5', { pageSize: '1.5' }, 'pageSize'],
    ["pageSize 'abc'", { pageSize: 'abc' }, 'pageSize'],
    ['page 0', { page: '0' }, 'page'],
    ["page 'abc'", { page: 'abc' }, 'page'],
    ['page -1', { page: '-1' }, 'page'],
    ['page 2.5', { page: '2.5' }, 'page'],
    ['an unknown include', { includes: 'nope' }, 'includes'],
    ['an unknown include beside known ones', { includes: 'domains,nope,customers' }, 'includes'],
    ['an include named by its singular', { includes: 'domain' }, 'includes'],
  ];
  for (const [what, query, source] of cases) {
    it(`answers 400 naming ${source} for ${what}`, async () => {
      await rejects(LIST, { query }, 400, source);
    });
  }

  it('accepts the edges of the ranges', async () => {
    const queries: Record<string, string>[] = [
      { pageSize: '1' },
      { pageSize: '100' },
      { page: '1' },
      { orderBy: 'name', orderMode: 'desc' },
      { orderBy: 'domains.name' },
      { includes: 'all' },
    ];
    for (const query of queries) {
      const response = await api(LIST, { key, query });
      expect(response.status, `${JSON.stringify(query)}: ${response.text}`).toBe(200);
    }
  });

  it('answers 400 naming includes to an unknown include on every route that takes one, and writes nothing', async () => {
    const query = { includes: 'nope' };
    await rejects(one(), { query }, 400, 'includes');
    await rejects(LIST, { method: 'POST', query, body: { company: { name: 'Included Co' } } }, 400, 'includes');
    await rejects(one(), { method: 'PATCH', query, body: { company: { industry: 'Changed' } } }, 400, 'includes');
    await rejects(one(), { method: 'PUT', query, body: { industry: 'Changed' } }, 400, 'includes');
  });
});

describe('path ids that are not positive integers', () => {
  const badIds = ['abc', '12abc', '0', '-1', '1.5', '1e3', '2147483648', '99999999999'];
  for (const badId of badIds) {
    it(`answers 400 naming id for /v2/companies/${badId}.json on GET, PATCH, PUT and DELETE`, async () => {
      const path = `/v2/companies/${badId}.json`;
      await rejects(path, {}, 400, 'id');
      await rejects(path, { method: 'PATCH', body: { company: { industry: 'Changed' } } }, 400, 'id');
      await rejects(path, { method: 'PUT', body: { industry: 'Changed' } }, 400, 'id');
      await rejects(path, { method: 'DELETE' }, 400, 'id');
    });
  }
});

describe('bodies over 1 MB', () => {
  const big = { company: { name: 'Big Co', description: 'x'.repeat(1_100_000) } };
  // Under a million characters but over a million bytes in UTF-8.
  const wide = { company: { name: 'Wide Co', description: 'é'.repeat(600_000) } };

  for (const [what, body] of [
    ['ASCII', big],
    ['multi-byte', wide],
  ] as const) {
    it(`answers 413 to a ${what} body over 1 MB on POST, PATCH, PUT and bulk update`, async () => {
      await rejects(LIST, { method: 'POST', body }, 413, 'body');
      await rejects(one(), { method: 'PATCH', body }, 413, 'body');
      await rejects(one(), { method: 'PUT', body }, 413, 'body');
      await rejects(BULK_UPDATE, { method: 'PATCH', query: { filter: { id: ids.globex } }, body }, 413, 'body');
    });
  }

  /** Sends the body as a stream, so that no Content-Length tells the size in advance. */
  async function sendChunked(text: string): Promise<ApiResponse> {
    const bytes = new TextEncoder().encode(text);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 64 * 1024)
          controller.enqueue(bytes.slice(offset, offset + 64 * 1024));
        controller.close();
      },
    });
    const url = inject('workerUrl') + LIST;
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    return checkAnswer('POST', url, response);
  }

  it('answers 413 to an ASCII body over 1 MB sent without a Content-Length (chunked)', async () => {
    const before = await snapshot();
    expectErrorBody(await sendChunked(JSON.stringify(big)), 413, 'body');
    expect(await snapshot()).toEqual(before);
  });

  // The limit is counted in UTF-16 code units of the decoded text, not in bytes.
  it('answers 413 to a multi-byte body over 1 MB (under a million characters) sent without a Content-Length', async () => {
    const before = await snapshot();
    expectErrorBody(await sendChunked(JSON.stringify(wide)), 413, 'body');
    expect(await snapshot()).toEqual(before);
  });
});

describe('bodies that are not JSON', () => {
  const types: [string, string][] = [
    ['text/plain', '{"company": {"name": "Plain Co"}}'],
    ['application/x-www-form-urlencoded', 'name=Form+Co'],
    [
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nMultipart Co\r\n--x--\r\n',
    ],
    ['application/xml', '<company><name>Xml Co</name></company>'],
    ['text/csv', 'name\nCsv Co\n'],
  ];
  for (const [type, text] of types) {
    it(`answers 415 to ${type} on POST, PATCH, PUT and bulk update`, async () => {
      const request = { body: text, headers: { 'content-type': type } };
      await rejects(LIST, { method: 'POST', ...request }, 415, 'body');
      await rejects(one(), { method: 'PATCH', ...request }, 415, 'body');
      await rejects(one(), { method: 'PUT', ...request }, 415, 'body');
      await rejects(BULK_UPDATE, { method: 'PATCH', query: { filter: { id: ids.globex } }, ...request }, 415, 'body');
    });
  }

  it('accepts JSON with a charset and a +json type', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/vnd.api+json']) {
      const response = await api(one(), {
        method: 'PATCH',
        key,
        body: JSON.stringify({ company: { note: type } }),
        headers: { 'content-type': type },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.company.note).toBe(type);
    }
  });
});

describe('read-only properties sent back', () => {
  it('accepts and ignores them on create, beside the wrapper too', async () => {
    const response = await api(LIST, {
      method: 'POST',
      key,
      body: {
        company: {
          id: ids.acme,
          type: 'companies',
          name: 'Echo Co',
          state: 'active',
          createdAt: '2001-01-01T00:00:00.000Z',
          createdBy: null,
          updatedAt: '2001-01-01T00:00:00.000Z',
          updatedBy: { id: 1, type: 'users' },
          deletedAt: null,
          deletedBy: null,
          customersCount: 99,
        },
        included: { domains: [{ id: 1, type: 'domains', name: 'x.test' }] },
        meta: { page: { page: 1, pageSize: 50 } },
      },
    });
    expect(response.status, response.text).toBe(201);
    const company = response.body.company;
    expect(company.id).not.toBe(ids.acme);
    expect(company).toMatchObject({
      name: 'Echo Co',
      customersCount: 0,
      state: 'active',
      createdBy: { id: site.users.agent.id, type: 'users' },
    });
    expect(company.createdAt.startsWith('2001')).toBe(false);
    expect(company.updatedAt.startsWith('2001')).toBe(false);
    const [acme] = await rows(`SELECT name FROM companies WHERE id = $1`, [ids.acme]);
    expect(acme).toEqual({ name: 'Acme' });
  });

  it('accepts them as 0 and null', async () => {
    const response = await api(LIST, {
      method: 'POST',
      key,
      body: {
        id: 0,
        type: 'companies',
        name: 'Zero Co',
        createdBy: 0,
        updatedBy: 0,
        createdAt: null,
        updatedAt: null,
        customersCount: null,
      },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.company.id).toBeGreaterThan(0);
    expect(response.body.company.createdBy).toEqual({ id: site.users.agent.id, type: 'users' });
  });

  it('ignores an id in a PATCH body: the path says which company changes', async () => {
    const target = (await api(LIST, { method: 'POST', key, body: { name: 'Target Co' } })).body.company;
    const response = await api(`/v2/companies/${target.id}.json`, {
      method: 'PATCH',
      key,
      body: {
        company: { id: ids.acme, type: 'companies', industry: 'Targeted', customersCount: 5, createdBy: null },
        meta: {},
      },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.company).toMatchObject({ id: target.id, industry: 'Targeted', customersCount: 0 });
    const stored = await rows(`SELECT id, industry FROM companies WHERE id = ANY($1) ORDER BY id`, [
      [ids.acme, target.id],
    ]);
    expect(stored).toEqual([
      { id: ids.acme, industry: null },
      { id: target.id, industry: 'Targeted' },
    ]);
  });

  describe('a whole GET body sent back by PUT', () => {
    let id: number;
    let read: ApiResponse;
    const childRows = async () => ({
      company: await rows(`SELECT name, industry, note FROM companies WHERE id = $1`, [id]),
      domains: await rows(
        `SELECT id, name, state, updated_at::text FROM company_domains WHERE company_id = $1 ORDER BY id`,
        [id],
      ),
      addresses: await rows(
        `SELECT id, city, state, updated_at::text FROM company_addresses WHERE company_id = $1 ORDER BY id`,
        [id],
      ),
      phones: await rows(
        `SELECT id, number, type, state, updated_at::text FROM company_phones WHERE company_id = $1 ORDER BY id`,
        [id],
      ),
      sociallinks: await rows(
        `SELECT id, type, url, state, updated_at::text FROM company_social_links WHERE company_id = $1 ORDER BY id`,
        [id],
      ),
      timelog: await rows(
        `SELECT id, billable, hourly_rate, currency, state FROM company_timelog_settings WHERE company_id = $1 ORDER BY id`,
        [id],
      ),
      links: await rows(`SELECT customer_id FROM company_customers WHERE company_id = $1`, [id]),
    });

    beforeAll(async () => {
      const created = await api(LIST, {
        method: 'POST',
        key,
        body: {
          company: {
            name: 'Roundtrip Co',
            industry: 'Loops',
            domains: [{ name: 'roundtrip.test' }],
            addresses: [{ city: 'Lyon' }],
            phones: [{ number: '+1 555 0199', type: 'mobile' }],
            sociallinks: [{ linkType: 'github', url: 'https://github.com/roundtrip' }],
            timelogsettings: { billable: true, hourlyRate: 80, currency: 'EUR' },
            customers: [{ id: ids.customer }],
          },
        },
      });
      expect(created.status, created.text).toBe(201);
      id = created.body.company.id;
      read = await api(`/v2/companies/${id}.json?includes=all`, { key });
      expect(read.status, read.text).toBe(200);
    });

    /** The body as GET gave it, with only the named relations kept on the record. */
    function sentBack(relations: string[]) {
      const company: Record<string, unknown> = { ...read.body.company };
      for (const name of ['domains', 'addresses', 'phones', 'sociallinks', 'timelogsettings', 'customers']) {
        if (!relations.includes(name)) delete company[name];
      }
      return { ...read.body, company };
    }

    it('accepts the record itself with included and meta beside it', async () => {
      const before = await childRows();
      const response = await api(`/v2/companies/${id}.json`, {
        method: 'PUT',
        key,
        body: { ...sentBack([]), meta: { page: null } },
      });
      expect(response.status, response.text).toBe(200);
      expect(await childRows()).toEqual(before);
    });

    for (const relation of ['domains', 'addresses', 'customers', 'phones', 'sociallinks', 'timelogsettings']) {
      it(`accepts the ${relation} references as GET gave them and leaves them as they were`, async () => {
        const before = await childRows();
        const response = await api(`/v2/companies/${id}.json?includes=all`, {
          method: 'PUT',
          key,
          body: sentBack([relation]),
        });
        expect(response.status, response.text).toBe(200);
        expect(response.body.company[relation]).toEqual(read.body.company[relation]);
        expect(await childRows()).toEqual(before);
      });
    }

    it('accepts all of it at once, with one change', async () => {
      const body = sentBack(['domains', 'addresses', 'phones', 'sociallinks', 'timelogsettings', 'customers']);
      const response = await api(`/v2/companies/${id}.json?includes=all`, {
        method: 'PUT',
        key,
        body: { ...body, company: { ...body.company, note: 'sent back' } },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.company).toMatchObject({ note: 'sent back', name: 'Roundtrip Co', customersCount: 1 });
    });
  });

  it('accepts included domain records sent back as relation entries', async () => {
    const read = await api(`/v2/companies/${ids.acme}.json?includes=domains`, { key });
    const response = await api(`/v2/companies/${ids.acme}.json`, {
      method: 'PATCH',
      key,
      body: { company: { domains: read.body.included.domains } },
    });
    expect(response.status, response.text).toBe(200);
    const [domain] = await rows(`SELECT name, state FROM company_domains WHERE id = $1`, [ids.acmeDomain]);
    expect(domain).toEqual({ name: 'acme.test', state: 'active' });
  });

  it('accepts and ignores them on bulk update', async () => {
    const response = await api(BULK_UPDATE, {
      method: 'PATCH',
      key,
      query: { filter: { id: ids.acme } },
      body: {
        company: {
          id: ids.globex,
          type: 'companies',
          customersCount: 7,
          createdBy: null,
          updatedAt: '2001-01-01T00:00:00.000Z',
          details: 'bulk details',
        },
      },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ affected: 1, ids: [ids.acme], jobId: null, dryRun: false });
    const stored = await rows(`SELECT id, details FROM companies WHERE id = ANY($1) ORDER BY id`, [
      [ids.acme, ids.globex],
    ]);
    expect(stored).toEqual([
      { id: ids.acme, details: 'bulk details' },
      { id: ids.globex, details: null },
    ]);
  });
});
