import { describe, expect, it } from 'vitest';
import { api } from '../support/api';

const companyOperations = [
  ['get', '/v2/companies.json'],
  ['post', '/v2/companies.json'],
  ['get', '/v2/companies/{id}.json'],
  ['patch', '/v2/companies/{id}.json'],
  ['put', '/v2/companies/{id}.json'],
  ['delete', '/v2/companies/{id}.json'],
  ['patch', '/v2/companies/update.json'],
  ['delete', '/v2/companies/delete.json'],
] as const;

describe('GET /v2/openapi.json', () => {
  it('is public and OpenAPI 3.1', async () => {
    const response = await api('/v2/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    const refs = [...response.text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const name of refs) expect(response.body.components.schemas[name], name).toBeDefined();
    expect(response.text).not.toContain('#/$defs/');
    expect(response.body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('lists every company operation with its parameters and answers', async () => {
    const doc = (await api('/v2/openapi.json')).body;
    const { paths } = doc;
    for (const [method, path] of companyOperations) expect(paths[path]?.[method], `${method} ${path}`).toBeDefined();
    const list = paths['/v2/companies.json'].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(['filter', 'orderBy', 'orderMode', 'page', 'pageSize', 'includes']);
    const orderBy = list.parameters.find((p: { name: string }) => p.name === 'orderBy');
    expect(orderBy.schema.enum).toEqual(expect.arrayContaining(['name', 'customersCount', 'address.country', 'domains.name', 'inboxes.id', 'phones']));
    expect(Object.keys(list.responses)).toEqual(['200', '400', '401', '403']);
    const get = paths['/v2/companies/{id}.json'].get;
    expect(get.parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true, schema: { type: 'integer' } });
    expect(get.responses['404'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(doc.components.schemas.Error.properties.errors.type).toBe('array');
  });

  it('describes the bodies with the schemas the routes validate with', async () => {
    const doc = (await api('/v2/openapi.json')).body;
    const { paths } = doc;
    const create = paths['/v2/companies.json'].post.requestBody.content['application/json'].schema;
    expect(create.required).toEqual(['name']);
    expect(create.properties.permission.enum).toEqual(['own', 'all']);
    expect(create.properties.domains.items.properties.name).toBeDefined();
    expect(create.additionalProperties).toBe(false);
    const record = paths['/v2/companies.json'].post.responses['201'].content['application/json'].schema;
    expect(record.properties.company).toEqual({ $ref: '#/components/schemas/company' });
    expect(doc.components.schemas.company.properties.customersCount.type).toBe('integer');
  });
});

describe('GET /v2/docs', () => {
  it('is a public page naming every operation', async () => {
    const response = await api('/v2/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    for (const [method, path] of companyOperations) expect(response.text).toContain(`<b>${method.toUpperCase()}</b></td><td><code>${path}</code>`);
  });
});

describe('the endpoint table of docs/endpoints.md', () => {
  it('every row marked implemented is in the OpenAPI document', async () => {
    const { readFileSync } = await import('node:fs');
    const table = readFileSync(new URL('../../docs/endpoints.md', import.meta.url), 'utf8');
    const implemented = [...table.matchAll(/^\| (\w+) \| `([^`]+)` \| implemented \|/gm)].map(([, method, path]) => [
      method!.toLowerCase(),
      path!.replace(/:(\w+)/g, '{$1}'),
    ]);
    expect(implemented.length).toBeGreaterThan(50);
    const { paths } = (await api('/v2/openapi.json')).body;
    const documentedIds = (name: string) => name.replace(/\{\w+\}/g, '{}');
    const documented = new Set(Object.entries(paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m} ${documentedIds(path)}`)));
    for (const [method, path] of implemented) expect(documented.has(`${method} ${documentedIds(path!)}`), `${method} ${path}`).toBe(true);
  });
});
