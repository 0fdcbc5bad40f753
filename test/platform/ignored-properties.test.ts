// The platform ignores body properties it does not use, and its clients rely on it: a property we
// do not know is accepted and ignored (never a 400), nothing of it is stored, and the answer names
// each in `X-Ignored-Properties` as an error would name it; a known property with a wrong value
// is still a 400. Ids are taken as numbers or as their canonical digits (`"12"`), nothing else.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { ignoredNames } from '../support/ignored';

let site: SeededInstallation;
let owner: string;

const ignored = ignoredNames;

const company = (id: number) => `/v2/companies/${id}.json`;

async function newCompany(name: string): Promise<number> {
  const made = await api('/v2/companies.json', { method: 'POST', key: owner, body: { company: { name } } });
  expect(made.status, made.text).toBe(201);
  expect(made.headers.has('x-ignored-properties'), 'nothing ignored: no header').toBe(false);
  return made.body.company.id;
}

/** Every column of the row, as stored. */
const stored = async (table: string, id: number) =>
  (await rows<{ row: Record<string, unknown> }>(`SELECT to_jsonb(t) AS row FROM ${table} t WHERE id = $1`, [id]))[0]!
    .row;

beforeAll(async () => {
  site = await newInstallation('ignored');
  owner = site.users.owner.apiKey;
});

describe('an unknown body property', () => {
  it('is ignored on create, wrapped or bare, and named in X-Ignored-Properties; nothing of it is stored', async () => {
    const wrapped = await api('/v2/companies.json', {
      method: 'POST',
      key: owner,
      body: { company: { name: 'Ignored Co', industry: 'Tea', colour: 'crimson', isReady: true }, extra: 1 },
    });
    expect(wrapped.status, wrapped.text).toBe(201);
    expect(ignored(wrapped)).toEqual(['company.colour', 'company.isReady', 'extra']);
    expect(wrapped.body.company).toMatchObject({ name: 'Ignored Co', industry: 'Tea' });
    expect(wrapped.body.company).not.toHaveProperty('colour');
    const row = await stored('companies', wrapped.body.company.id);
    expect(row).toMatchObject({ name: 'Ignored Co', industry: 'Tea' });
    expect(JSON.stringify(row)).not.toMatch(/colour|isReady|crimson/);

    const bare = await api('/v2/companies.json', {
      method: 'POST',
      key: owner,
      body: { name: 'Bare Ignored Co', nope: { deep: 1 } },
    });
    expect(bare.status, bare.text).toBe(201);
    expect(ignored(bare)).toEqual(['company.nope']);
  });

  it('is ignored on PATCH and PUT, the known ones written', async () => {
    const id = await newCompany('Updated Ignored Co');
    const patched = await api(company(id), {
      method: 'PATCH',
      key: owner,
      body: { company: { industry: 'Coffee', organisationName: 'x' } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(ignored(patched)).toEqual(['company.organisationName']);
    const put = await api(company(id), {
      method: 'PUT',
      key: owner,
      body: { industry: 'Cocoa', addMethod: 'api', permission: 'own' },
    });
    expect(put.status, put.text).toBe(200);
    expect(ignored(put)).toEqual(['company.addMethod']);
    expect(await stored('companies', id)).toMatchObject({ industry: 'Cocoa', permission: 'own' });
  });

  it('is ignored in a bulk update, the filter beside the changes', async () => {
    const [a, b] = [await newCompany('Bulk Ignored A'), await newCompany('Bulk Ignored B')];
    const bulk = await api('/v2/companies/update.json', {
      method: 'PATCH',
      key: owner,
      body: {
        company: { industry: 'Bulk', colour: 'red' },
        filter_args: { filter: { id: { $in: [a, b] } }, bulkDryExecute: false, pageSize: 50 },
      },
    });
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.ids.sort()).toEqual([a, b].sort());
    expect(ignored(bulk)).toEqual(['company.colour', 'company.filter_args.pageSize']);
    for (const id of [a, b]) expect(await stored('companies', id)).toMatchObject({ industry: 'Bulk' });
  });

  it("is ignored inside nested entries: a company's domains, a customer's contacts, a trigger's conditions and actions", async () => {
    const made = await api('/v2/companies.json', {
      method: 'POST',
      key: owner,
      query: { includes: 'domains' },
      body: {
        company: {
          name: 'Nested Ignored Co',
          domains: [{ name: 'nested.test' }, { name: 'nested2.test', colour: 'red' }],
        },
      },
    });
    expect(made.status, made.text).toBe(201);
    expect(ignored(made)).toEqual(['company.domains[1].colour']);
    const domains = await rows<{ row: Record<string, unknown> }>(
      `SELECT to_jsonb(d) AS row FROM company_domains d WHERE company_id = $1 ORDER BY id`,
      [made.body.company.id],
    );
    expect(domains.map(({ row }) => row.name)).toEqual(['nested.test', 'nested2.test']);
    expect(JSON.stringify(domains)).not.toMatch(/colour/);

    const customer = await api('/v2/customers.json', {
      method: 'POST',
      key: owner,
      query: { includes: 'contacts' },
      body: {
        customer: {
          firstName: 'Ada',
          isReady: true,
          error: null,
          contacts: [{ id: 0, type: 'email', value: 'ada@ignored.test', isMain: true, isReady: false }],
        },
      },
    });
    expect(customer.status, customer.text).toBe(201);
    expect(ignored(customer)).toEqual(['customer.contacts[0].isReady', 'customer.error', 'customer.isReady']);
    const contacts = await rows(`SELECT type, value FROM customer_contacts WHERE customer_id = $1`, [
      customer.body.customer.id,
    ]);
    expect(contacts).toEqual([{ type: 'email', value: 'ada@ignored.test' }]);

    const trigger = await api('/v2/triggers.json', {
      method: 'POST',
      key: site.users.admin.apiKey,
      query: { includes: 'all' },
      body: {
        trigger: { type: 'Automatic', name: 'Ignoring', description: 'd', state: 'inactive', colour: 'red' },
        included: {
          conditions: [{ id: 0, field: 11, operator: 1, value: 'never-matches', matchRequirement: 'ALL', hint: 'x' }],
          triggeractions: [{ id: 0, type: 8, message: 'noted', label: 'y' }],
        },
      },
    });
    expect(trigger.status, trigger.text).toBe(201);
    expect(ignored(trigger)).toEqual([
      'trigger.colour',
      'trigger.conditions[0].hint',
      'trigger.triggeractions[0].label',
    ]);
    expect(trigger.body.included.conditions[0]).toMatchObject({ field: 11, value: 'never-matches' });
    expect(JSON.stringify(trigger.body)).not.toMatch(/hint|label/);
  });

  it('is named in the header even when the write is refused for another reason', async () => {
    const id = await newCompany('Refused Ignored Co');
    const other = await newCompany('Refused Ignored Other');
    const clash = await api(company(other), {
      method: 'PATCH',
      key: owner,
      body: { company: { name: 'Refused Ignored Co', colour: 'red' } },
    });
    expect(clash.status, clash.text).toBe(409);
    expect(ignored(clash)).toEqual(['company.colour']);
    expect((await stored('companies', id)).name).toBe('Refused Ignored Co');
  });

  it('is named with what a header cannot carry percent-encoded, and a long list cut short', async () => {
    const odd = await api('/v2/companies.json', {
      method: 'POST',
      key: owner,
      body: { company: { name: 'Odd Names Co', 'a,b é': 1, '100%': 2 } },
    });
    expect(odd.status, odd.text).toBe(201);
    expect(ignored(odd)).toEqual(['company.100%25', 'company.a%2Cb%20%C3%A9']);
    const many = Object.fromEntries(Array.from({ length: 500 }, (_, index) => [`unknown${index}`, index]));
    const long = await api('/v2/companies.json', {
      method: 'POST',
      key: owner,
      body: { company: { name: 'Many Names Co', ...many } },
    });
    expect(long.status, long.text).toBe(201);
    const header = long.headers.get('x-ignored-properties')!;
    expect(header.length).toBeLessThanOrEqual(2_005);
    expect(header.startsWith('company.unknown0, company.unknown1, ')).toBe(true);
    expect(header.endsWith(', ...')).toBe(true);
  });
});

describe('a known property with a wrong value', () => {
  it('is still a 400 naming it, beside unknown ones, and nothing is written', async () => {
    const before = (await rows(`SELECT count(*)::int AS n FROM companies WHERE installation_id = $1`, [site.id]))[0];
    expectError(
      await api('/v2/companies.json', {
        method: 'POST',
        key: owner,
        body: { company: { name: 'Wrong Co', industry: 5, colour: 'red' } },
      }),
      400,
      'company.industry',
    );
    // wrapped with a wrong value is never read as a bare record whose unknown `company` is ignored
    expectError(
      await api('/v2/companies.json', { method: 'POST', key: owner, body: { company: { name: 7 } } }),
      400,
      'company.name',
    );
    const id = await newCompany('Wrong Value Co');
    expectError(
      await api(company(id), { method: 'PATCH', key: owner, body: { company: { permission: 'everyone' } } }),
      400,
      'company.permission',
    );
    expectError(await api(company(id), { method: 'PATCH', key: owner, body: { company: 'Acme' } }), 400, 'company');
    expectError(
      await api('/v2/companies.json', {
        method: 'POST',
        key: owner,
        body: { company: { name: 'Deep Wrong Co', domains: [{ name: 5, colour: 'red' }] } },
      }),
      400,
      'company.domains[0].name',
    );
    const after = (await rows(`SELECT count(*)::int AS n FROM companies WHERE installation_id = $1`, [site.id]))[0];
    expect(after).toEqual({ n: (before as { n: number }).n + 1 });
  });

  it('a property an update takes but a bulk update does not is a 400 there, not ignored', async () => {
    const customer = (
      await api('/v2/customers.json', { method: 'POST', key: owner, body: { email: 'bulk-email@ignored.test' } })
    ).body.customer.id;
    expectError(
      await api('/v2/customers/update.json', {
        method: 'PATCH',
        key: owner,
        query: { filter: { id: customer } },
        body: { email: 'same@ignored.test' },
      }),
      400,
      'customer.email',
      /bulk/,
    );
    expect((await rows(`SELECT email FROM customers WHERE id = $1`, [customer]))[0]).toEqual({
      email: 'bulk-email@ignored.test',
    });
  });
});

describe('an id', () => {
  it('is taken as its canonical digits wherever an integer id is: a reference, a bare id, an entry', async () => {
    const inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id as number;
    const reference = await api('/v2/cannedresponses.json', {
      method: 'POST',
      key: owner,
      body: { cannedresponse: { name: 'Digits', reply: 'x', inbox: { id: String(inbox) } } },
    });
    expect(reference.status, reference.text).toBe(201);
    expect(reference.body.cannedresponse.inbox).toEqual({ id: inbox, type: 'inboxes' });
    const bare = await api('/v2/cannedresponses.json', {
      method: 'POST',
      key: owner,
      body: { cannedresponse: { name: 'Bare digits', reply: 'x', inbox: String(inbox) } },
    });
    expect(bare.status, bare.text).toBe(201);
    expect(bare.body.cannedresponse.inbox).toEqual({ id: inbox, type: 'inboxes' });
    const customer = (
      await api('/v2/customers.json', { method: 'POST', key: owner, body: { email: 'digits@ignored.test' } })
    ).body.customer.id as number;
    const linked = await api('/v2/companies.json', {
      method: 'POST',
      key: owner,
      query: { includes: 'customers' },
      body: { company: { name: 'Digits Co', customers: [{ id: String(customer) }] } },
    });
    expect(linked.status, linked.text).toBe(201);
    expect(linked.body.company.customers).toEqual([{ id: customer, type: 'customers' }]);
  });

  it('in any other string form is a 400 naming the property, and nothing is written', async () => {
    const inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id as number;
    const before = await rows(`SELECT id FROM canned_responses WHERE installation_id = $1`, [site.id]);
    for (const id of [
      `0${inbox}`,
      ` ${inbox}`,
      `+${inbox}`,
      `-${inbox}`,
      `${inbox}.0`,
      '1e1',
      '0',
      '',
      '2147483648',
      'abc',
    ]) {
      expectError(
        await api('/v2/cannedresponses.json', {
          method: 'POST',
          key: owner,
          body: { cannedresponse: { name: 'Bad digits', reply: 'x', inbox: { id: id } } },
        }),
        400,
        'cannedresponse.inbox',
      );
      expectError(
        await api('/v2/cannedresponses.json', {
          method: 'POST',
          key: owner,
          body: { cannedresponse: { name: 'Bad digits', reply: 'x', inbox: id } },
        }),
        400,
        'cannedresponse.inbox',
      );
    }
    expect(await rows(`SELECT id FROM canned_responses WHERE installation_id = $1`, [site.id])).toEqual(before);
  });
});

describe('the OpenAPI document', () => {
  it('declares X-Ignored-Properties on every answer of an operation that takes a JSON body, and no request body refuses additional properties', async () => {
    const document = (await api('/v2/openapi.json')).body;
    const resolve = (schema: any): any =>
      schema?.$ref ? document.components.schemas[schema.$ref.split('/').pop()] : schema;
    const strict: string[] = [];
    const walk = (schema: any, where: string, seen: Set<unknown>) => {
      const resolved = resolve(schema);
      if (!resolved || typeof resolved !== 'object' || seen.has(resolved)) return;
      seen.add(resolved);
      if (resolved.additionalProperties === false) strict.push(where);
      for (const [name, property] of Object.entries(resolved.properties ?? {}))
        walk(property, `${where}.${name}`, seen);
      for (const branch of [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])])
        walk(branch, where, seen);
      if (resolved.items) walk(resolved.items, `${where}[]`, seen);
    };
    let operations = 0;
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        const body = operation?.requestBody?.content?.['application/json']?.schema;
        if (!body) continue;
        operations++;
        walk(body, `${method} ${path}`, new Set());
        for (const [status, answer] of Object.entries(operation.responses as Record<string, any>)) {
          expect(answer.headers?.['X-Ignored-Properties'], `${method} ${path} ${status}`).toMatchObject({
            required: false,
            schema: { type: 'string' },
          });
        }
      }
    }
    expect(operations).toBeGreaterThan(50);
    expect(strict).toEqual([]);
    expect(
      resolve(document.paths['/v2/companies.json'].post.requestBody.content['application/json'].schema),
    ).toBeDefined();
  });
});
