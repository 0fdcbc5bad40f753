import { PgDialect } from 'drizzle-orm/pg-core';
import type { SQL } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import type { Principal } from '../../src/auth/principal';
import type { Queryable } from '../../src/db/client';
import { canonicalIncludes, selectOne, selectPage } from '../../src/engine/queries';
import { companiesResource } from '../../src/resources/companies/companies.resource';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';

/*
 * The statements of a read are cached per resource and includes: the includes must be keyed in
 * one order whatever order a client names them in, or every permutation is an entry of its own
 * (a client could fill the isolate's memory with GETs).
 */

const who: Principal = { kind: 'teammate', installationId: 1, userId: 1, role: 'owner' };
const dialect = new PgDialect();

/** A database handle that records the statements it is given (as text) and answers no rows. */
function recorder(prepared: boolean) {
  const statements: string[] = [];
  const db: Queryable = {
    async execute(query: SQL) {
      statements.push(dialect.sqlToQuery(query).sql);
      return { rows: [] };
    },
    ...(prepared ? { executeText: async (text: string) => (statements.push(text), { rows: [] }) } : {}),
  };
  return { db, statements };
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

describe('canonicalIncludes', () => {
  it('puts the includes in the order the declaration names its relations', () => {
    expect(Object.keys(companiesResource.relations)).toEqual([
      'addresses',
      'customers',
      'domains',
      'phones',
      'sociallinks',
      'timelogsettings',
    ]);
    expect(canonicalIncludes(companiesResource, ['timelogsettings', 'domains', 'addresses'])).toEqual([
      'addresses',
      'domains',
      'timelogsettings',
    ]);
    expect(canonicalIncludes(companiesResource, [])).toEqual([]);
  });

  it('gives every order of the same includes the same answer', () => {
    const all = Object.keys(companiesResource.relations);
    const orders = permutations(all);
    expect(orders).toHaveLength(720);
    for (const order of orders) expect(canonicalIncludes(companiesResource, order)).toEqual(all);
  });
});

describe('the statements of a read', () => {
  const orders = [
    ['phones', 'domains', 'customers'],
    ['customers', 'phones', 'domains'],
    ['domains', 'customers', 'phones'],
  ];

  it('are the same for every order of the includes: a page, prepared and rendered', async () => {
    for (const prepared of [true, false]) {
      for (const order of [undefined, { expr: companiesResource.table.id, descending: true }]) {
        const texts = new Set<string>();
        for (const includes of orders) {
          const { db, statements } = recorder(prepared);
          await selectPage(db, companiesResource, { who, includes }, { limit: 10, offset: 0, order });
          expect(statements).toHaveLength(1);
          texts.add(statements[0]!);
        }
        expect(texts.size, `prepared: ${prepared}, ordered: ${order !== undefined}`).toBe(1);
      }
    }
  });

  it('are the same for every order of the includes: one record', async () => {
    for (const prepared of [true, false]) {
      const texts = new Set<string>();
      for (const includes of orders) {
        const { db, statements } = recorder(prepared);
        await selectOne(db, companiesResource, 7, { who, includes });
        texts.add(statements[0]!);
      }
      expect(texts.size, `prepared: ${prepared}`).toBe(1);
    }
  });
});

describe('answers', () => {
  let site: SeededInstallation;
  let key: string;
  let id: number;

  beforeAll(async () => {
    site = await newInstallation('includes-order');
    key = site.users.owner.apiKey;
    const created = await api('/v2/companies.json', {
      method: 'POST',
      key,
      body: {
        company: { name: 'Ordered', domains: [{ name: 'b.test' }, { name: 'a.test' }], phones: [{ number: '100' }] },
      },
    });
    expect(created.status, created.text).toBe(201);
    id = created.body.company.id;
    const customers = await rows<{ id: number }>(
      `INSERT INTO customers (installation_id, email) SELECT $1, 'o' || g || '@x.test' FROM generate_series(1, 2) g RETURNING id`,
      [site.id],
    );
    const linked = await api(`/v2/companies/${id}.json`, {
      method: 'PATCH',
      key,
      body: { customers: customers.map((c) => ({ id: c.id })) },
    });
    expect(linked.status, linked.text).toBe(200);
  });

  it('are byte for byte the same for every order of the includes, in the declaration order', async () => {
    for (const path of ['/v2/companies.json', `/v2/companies/${id}.json`]) {
      const texts = new Set<string>();
      for (const includes of permutations(['phones', 'domains', 'customers'])) {
        const response = await api(`${path}?includes=${includes.join(',')}`, { key });
        expect(response.status, response.text).toBe(200);
        texts.add(response.text);
      }
      expect(texts.size, path).toBe(1);
      const body = JSON.parse([...texts][0]!);
      expect(Object.keys(body.included)).toEqual(['customers', 'domains', 'phones']);
      const company = path === '/v2/companies.json' ? body.companies[0] : body.company;
      expect(Object.keys(company).filter((name) => name in companiesResource.relations)).toEqual([
        'customers',
        'domains',
        'phones',
      ]);
      // the references follow the record's own properties, which keep their order without includes
      const plain = await api(`${path}`, { key });
      const own = Object.keys(path === '/v2/companies.json' ? plain.body.companies[0] : plain.body.company);
      expect(Object.keys(company)).toEqual([...own, 'customers', 'domains', 'phones']);
      expect(body.included.customers).toHaveLength(2);
      expect(body.included.domains.map((d: { name: string }) => d.name)).toEqual(['b.test', 'a.test']);
    }
  });

  it('name the same includes as includes=all when every relation is named, in any order', async () => {
    const all = await api(`/v2/companies/${id}.json?includes=all`, { key });
    const reversed = await api(
      `/v2/companies/${id}.json?includes=${Object.keys(companiesResource.relations).reverse().join(',')}`,
      { key },
    );
    expect(reversed.status, reversed.text).toBe(200);
    expect(reversed.text).toBe(all.text);
  });
});
