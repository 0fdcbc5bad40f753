// The typed client (clients/typescript) against the Worker under test: a company's whole life
// through it, with an owner's key of a fresh installation. Every answer is also checked against
// the OpenAPI document, as api() checks them.
import { beforeAll, describe, expect, expectTypeOf, inject, it } from 'vitest';
import { createHelpdeskClient, type HelpdeskClient, type Schema } from '../../clients/typescript';
import type { SeededInstallation } from '../../scripts/seed';
import { checkAnswer } from '../support/contract';
import { newInstallation } from '../support/db';

let site: SeededInstallation;
let helpdesk: HelpdeskClient;

/** fetch, with each answer held to the document (test/support/contract.ts) */
async function contractFetch(request: Request): Promise<Response> {
  const response = await fetch(request);
  await checkAnswer(request.method, request.url, response.clone());
  return response;
}

beforeAll(async () => {
  site = await newInstallation('client');
  helpdesk = createHelpdeskClient({ baseUrl: `${inject('workerUrl')}/`, apiKey: site.users.owner.apiKey, fetch: contractFetch });
});

/** Never called: what the compiler refuses (`npx tsc --noEmit -p .` type-checks this file). */
export function refusedByTheCompiler(client: HelpdeskClient): void {
  // @ts-expect-error no such path
  void client.GET('/v2/companys.json');
  // @ts-expect-error a company needs its name
  void client.POST('/v2/companies.json', { body: { company: { industry: 'Energy' } } });
  // @ts-expect-error the path's id is a number
  void client.GET('/v2/companies/{id}.json', { params: { path: { id: 'seven' } } });
  // @ts-expect-error `orderMode` is asc or desc
  void client.GET('/v2/companies.json', { params: { query: { orderMode: 'up' } } });
}

describe('the typed client', () => {
  it('creates, reads, lists by filter, updates and deletes a company', async () => {
    const created = await helpdesk.POST('/v2/companies.json', {
      body: { company: { name: 'Typed Client Co', industry: 'Software', domains: [{ name: 'typed-client.test' }] } },
    });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    expect(created.error).toBeUndefined();
    const company = created.data!.company;
    expectTypeOf(company).toEqualTypeOf<Schema<'Company'>>();
    expect(company).toMatchObject({ type: 'companies', name: 'Typed Client Co', industry: 'Software', state: 'active' });
    expect(company.createdBy).toEqual({ id: site.users.owner.id, type: 'users' });
    expect(company.domains).toEqual([{ id: expect.any(Number), type: 'domains' }]);

    const other = await helpdesk.POST('/v2/companies.json', { body: { name: 'Another Co', industry: 'Software' } });
    expect(other.response.status).toBe(201);

    const read = await helpdesk.GET('/v2/companies/{id}.json', { params: { path: { id: company.id }, query: { includes: 'domains' } } });
    expect(read.response.status).toBe(200);
    expect(read.data!.company).toMatchObject({ id: company.id, name: 'Typed Client Co', industry: 'Software' });
    expect(read.data!.included.domains?.map((domain) => domain.name)).toEqual(['typed-client.test']);

    const listed = await helpdesk.GET('/v2/companies.json', {
      params: { query: { filter: JSON.stringify({ industry: 'Software', name: { $contains: 'Typed' } }), orderBy: 'name', orderMode: 'asc' } },
    });
    expect(listed.response.status).toBe(200);
    expect(listed.data!.companies.map((record) => record.id)).toEqual([company.id]);
    expect(listed.data!.meta.page).toMatchObject({ count: 1, page: 1, hasMore: false });
    expect(listed.data!.pagination).toMatchObject({ records: 1, page: 1, hasMorePages: false });
    const both = await helpdesk.GET('/v2/companies.json', { params: { query: { filter: JSON.stringify({ industry: 'Software' }), orderBy: 'name' } } });
    expect(both.data!.companies.map((record) => record.name)).toEqual(['Another Co', 'Typed Client Co']);

    const updated = await helpdesk.PATCH('/v2/companies/{id}.json', { params: { path: { id: company.id } }, body: { company: { industry: 'Hardware', website: 'https://typed-client.test' } } });
    expect(updated.response.status).toBe(200);
    expect(updated.data!.company).toMatchObject({ id: company.id, name: 'Typed Client Co', industry: 'Hardware', website: 'https://typed-client.test' });

    const deleted = await helpdesk.DELETE('/v2/companies/{id}.json', { params: { path: { id: company.id } } });
    expect(deleted.response.status).toBe(204);
    expect(deleted.error).toBeUndefined();

    const gone = await helpdesk.GET('/v2/companies/{id}.json', { params: { path: { id: company.id } } });
    expect(gone.response.status).toBe(404);
    expect(gone.data).toBeUndefined();
    expect(gone.error!.errors[0]!.code).toBe('notFound');
  });

  it('answers 400 with the error body, typed', async () => {
    const refused = await helpdesk.POST('/v2/companies.json', { body: { company: { name: 'Bad Domain Co', domains: [{ name: 'not a domain' }] } } });
    expect(refused.response.status).toBe(400);
    expect(refused.data).toBeUndefined();
    const error = refused.error!;
    expectTypeOf(error).toEqualTypeOf<Schema<'Error'>>();
    expect(error.errors).toEqual([{ code: 'invalid', source: 'company.domains[0].name', detail: expect.any(String) }]);
    expect(error.requestId).toBe(refused.response.headers.get('x-request-id'));

    const badFilter = await helpdesk.GET('/v2/companies.json', { params: { query: { filter: JSON.stringify({ colour: 'red' }) } } });
    expect(badFilter.response.status).toBe(400);
    expect(badFilter.error!.errors[0]).toMatchObject({ code: 'invalid', source: expect.stringMatching(/^filter/) });
  });

  it('sends the key as a bearer token: without a valid one, 401', async () => {
    const stranger = createHelpdeskClient({ baseUrl: inject('workerUrl'), apiKey: 'not-a-key', fetch: contractFetch });
    const refused = await stranger.GET('/v2/companies.json');
    expect(refused.response.status).toBe(401);
    expect(refused.error!.errors[0]!.code).toBe('unauthorized');
  });
});
