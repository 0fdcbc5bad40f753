// What the platform's official client (the Go SDK, Teamwork/desksdkgo) sends and decodes, driven
// through the public API: `pagination` beside `meta.page` on every list, `fields`, a record's own
// `type`, and its request shapes (the whole response type sent back with `id: 0`, `type: null`
// and every `included` list null; `Content-Type: application/json` on GETs; `includes=all` on every
// single GET; `filter={}` on lists).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { DEV_OPERATOR_TOKEN } from '../../scripts/worker-vars';
import { api } from '../support/api';
import { newInstallation } from '../support/db';
import { expectError } from '../support/errors';
import { expectPagination } from '../support/pagination';

let site: SeededInstallation;
let owner: string;

/** The SDK's `IncludedData`, as it marshals an empty one: all 19 lists, each null. */
const SDK_INCLUDED = Object.fromEntries(
  [
    'companies',
    'contacts',
    'customers',
    'domains',
    'inboxes',
    'messages',
    'slacustomers',
    'slacompanies',
    'slainboxes',
    'slanotifications',
    'slaticketpriorities',
    'slatags',
    'tags',
    'ticketactivities',
    'ticketsources',
    'ticketstatuses',
    'tickettypes',
    'timelogs',
    'users',
  ].map((name) => [name, null]),
);

/** The SDK's request headers: JSON on every request, GETs included. */
const SDK_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

beforeAll(async () => {
  site = await newInstallation('sdk');
  owner = site.users.owner.apiKey;
});

describe('every list', () => {
  it('carries `pagination` {records, pageSize, pages, page, hasMorePages} agreeing with `meta.page`', async () => {
    const { paths } = (await api('/v2/openapi.json')).body;
    const lists = Object.entries(paths as Record<string, any>)
      .filter(
        ([path, methods]) =>
          methods.get &&
          !path.includes('{') &&
          methods.get.parameters?.some((p: { name: string }) => p.name === 'pageSize'),
      )
      .map(([path]) => path);
    expect(lists.length).toBeGreaterThan(12);
    await api('/v2/companies.json', { method: 'POST', key: owner, body: { name: 'Paged A' } });
    await api('/v2/companies.json', { method: 'POST', key: owner, body: { name: 'Paged B' } });
    for (const path of lists) {
      // the operators' lists (dead letters) take the operator token, not an API key
      const key = path.startsWith('/operator/') ? DEV_OPERATOR_TOKEN : owner;
      const response = await api(path, { key, headers: SDK_HEADERS, query: { page: 1, pageSize: 1 } });
      expect(response.status, `${path}: ${response.text}`).toBe(200);
      const { pagination } = response.body;
      expectPagination(response.body, path);
      expect(pagination, path).toMatchObject({ pageSize: 1, page: 1 });
      for (const value of [pagination.records, pagination.pageSize, pagination.pages, pagination.page])
        expect(Number.isInteger(value), path).toBe(true);
    }
    const second = await api('/v2/companies.json', {
      key: owner,
      query: { page: 2, pageSize: 1, filter: { name: { $contains: 'Paged' } } },
    });
    expect(second.body.pagination).toEqual({ records: 2, pageSize: 1, pages: 2, page: 2, hasMorePages: false });
  });

  it('takes the `filter={}` the SDK always sends, and its orderBy createdAt desc', async () => {
    const response = await api('/v2/companies.json', {
      key: owner,
      headers: SDK_HEADERS,
      query: { filter: '{}', orderBy: 'createdAt', orderMode: 'desc', page: 1, pageSize: 10 },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.companies.length).toBeGreaterThan(0);
  });
});

describe('`fields`, a sparse field set', () => {
  it('gives only the properties named (and id and type) on lists and single records; included is left whole', async () => {
    const created = await api('/v2/companies.json', {
      method: 'POST',
      key: owner,
      body: { name: 'Sparse Co', industry: 'Maps', domains: [{ name: 'sparse.test' }] },
    });
    const id = created.body.company.id;
    const list = await api('/v2/companies.json', { key: owner, query: { fields: 'name,industry', filter: { id } } });
    expect(list.status, list.text).toBe(200);
    expect(list.body.companies).toEqual([{ id, type: 'companies', name: 'Sparse Co', industry: 'Maps' }]);
    const one = await api(`/v2/companies/${id}.json`, {
      key: owner,
      query: { fields: 'name,domains', includes: 'domains' },
    });
    expect(one.body.company).toEqual({
      id,
      type: 'companies',
      name: 'Sparse Co',
      domains: [{ id: expect.any(Number), type: 'domains' }],
    });
    expect(one.body.included.domains[0]).toMatchObject({
      name: 'sparse.test',
      type: 'domains',
      createdAt: expect.any(String),
    });
  });

  it('refuses a name the record does not have, naming `fields`', async () => {
    expectError(
      await api('/v2/companies.json', { key: owner, query: { fields: 'name,colour' } }),
      400,
      'fields',
      /unknown field "colour"/,
    );
    expectError(await api('/v2/companies/1.json', { key: owner, query: { fields: 'password' } }), 400, 'fields');
  });
});

describe("a record's own `type`", () => {
  it("is a phone's kind, as the SDK decodes it, while a reference to the phone keeps its type name", async () => {
    const created = await api('/v2/companies.json', {
      method: 'POST',
      key: owner,
      body: { name: 'Phoned Co', phones: [{ number: '+1 555 0101', type: 'mobile' }] },
    });
    expect(created.status, created.text).toBe(201);
    const { company, included } = created.body;
    expect(included.phones).toEqual([expect.objectContaining({ number: '+1 555 0101', type: 'mobile' })]);
    expect(company.phones).toEqual([{ id: included.phones[0].id, type: 'phones' }]);
    // Sent back as read, the reference leaves the phone alone; `type` with a kind changes it.
    const sentBack = await api(`/v2/companies/${company.id}.json`, {
      method: 'PUT',
      key: owner,
      body: { company: { phones: company.phones } },
    });
    expect(sentBack.body.included.phones[0].type).toBe('mobile');
    const changed = await api(`/v2/companies/${company.id}.json`, {
      method: 'PUT',
      key: owner,
      body: { company: { phones: [{ id: included.phones[0].id, type: 'fax' }] } },
    });
    expect(changed.body.included.phones[0].type).toBe('fax');
    expectError(
      await api(`/v2/companies/${company.id}.json`, {
        method: 'PUT',
        key: owner,
        body: { phones: [{ id: included.phones[0].id, type: 'pager' }] },
      }),
      400,
      'company.phones[0].type',
    );
  });
});

describe("the SDK's request shapes", () => {
  it('creates from the whole response type sent back: id 0, type null, every included list null', async () => {
    const body = {
      businesshour: { id: 0, type: null, name: 'SDK hours', isDefault: true, timezone_name: 'Europe/Dublin' },
      included: SDK_INCLUDED,
    };
    const created = await api('/v2/businesshours.json', { method: 'POST', key: owner, headers: SDK_HEADERS, body });
    expect(created.status, created.text).toBe(201);
    expect(created.body.businesshour).toMatchObject({
      name: 'SDK hours',
      isDefault: true,
      timezone_name: 'Europe/Dublin',
      timezoneId: expect.any(Number),
    });

    const company = await api('/v2/companies.json', {
      method: 'POST',
      key: owner,
      headers: SDK_HEADERS,
      body: { company: { id: 0, type: null, name: 'SDK Co', description: 'made by the SDK' }, included: SDK_INCLUDED },
    });
    expect(company.status, company.text).toBe(201);
  });

  it('updates with PUT from the record it read (includes=all), answering 200, as the SDK requires', async () => {
    const created = await api('/v2/companies.json', {
      method: 'POST',
      key: owner,
      body: { name: 'Round Trip Co', domains: [{ name: 'round.test' }] },
    });
    const read = await api(`/v2/companies/${created.body.company.id}.json`, {
      key: owner,
      headers: SDK_HEADERS,
      query: { includes: 'all' },
    });
    expect(read.status, read.text).toBe(200);
    const sent = {
      company: { ...read.body.company, description: 'changed by the SDK' },
      included: { ...SDK_INCLUDED, ...read.body.included },
    };
    const updated = await api(`/v2/companies/${created.body.company.id}.json`, {
      method: 'PUT',
      key: owner,
      headers: SDK_HEADERS,
      body: sent,
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.company.description).toBe('changed by the SDK');
  });

  it('answers every single GET with includes=all and a JSON Content-Type on the request', async () => {
    // Every read of one record by its id the document declares: a missing record is a 404, never a
    // 400 for the `includes=all` or the Content-Type.
    const { paths } = (await api('/v2/openapi.json')).body;
    type Parameter = { in: string; name: string; schema?: { type?: string } };
    const singles = Object.entries(paths as Record<string, { get?: { parameters?: Parameter[] } }>)
      .filter(([, methods]) => {
        const parameters = methods.get?.parameters ?? [];
        const inPath = parameters.filter((p) => p.in === 'path');
        return (
          inPath.length === 1 &&
          inPath[0]!.schema?.type === 'integer' &&
          parameters.some((p) => p.in === 'query' && p.name === 'includes')
        );
      })
      .map(([path]) => path);
    expect(singles.length).toBeGreaterThan(12);
    for (const template of singles) {
      const path = template.replace(/\{\w+\}/, '2147483647');
      expectError(await api(path, { key: owner, headers: SDK_HEADERS, query: { includes: 'all' } }), 404);
    }

    const ids: Record<string, number> = {
      companies: (await api('/v2/companies.json', { method: 'POST', key: owner, body: { name: 'All Co' } })).body
        .company.id,
      businesshours: (
        await api('/v2/businesshours.json', {
          method: 'POST',
          key: owner,
          body: { name: 'All hours', timezone_name: 'UTC' },
        })
      ).body.businesshour.id,
      cannedresponses: (
        await api('/v2/cannedresponses.json', { method: 'POST', key: owner, body: { name: 'All', reply: 'Hi' } })
      ).body.cannedresponse.id,
      contactforms: (await api('/v2/contactforms.json', { method: 'POST', key: owner, body: { name: 'All form' } }))
        .body.contactform.id,
      timezones: 1,
    };
    const { body } = await api('/v2/apps.json', { key: owner });
    ids.apps = body.apps[0].id;
    for (const [type, id] of Object.entries(ids)) {
      expect(singles, type).toContain(`/v2/${type}/{id}.json`);
      const response = await api(`/v2/${type}/${id}.json`, {
        key: owner,
        headers: SDK_HEADERS,
        query: { includes: 'all' },
      });
      expect(response.status, `${type}: ${response.text}`).toBe(200);
    }
    for (const path of ['/v2/ai/usage.json', '/v2/ai/stats.json', '/v2/announcement.json']) {
      const response = await api(path, { key: owner, headers: SDK_HEADERS, query: { includes: 'all' } });
      expect([200, 204], `${path}: ${response.text}`).toContain(response.status);
    }
  });
});
