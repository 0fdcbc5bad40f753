// The Postman collection (clients/postman): it parses as a v2.1 collection, has one request per
// operation of the document, and authenticates with the bearer `{{apiKey}}` against `{{baseUrl}}`.
// postman-collection (Postman's own SDK) ships its types without naming them in its package.json:
/// <reference path="../../node_modules/postman-collection/types/index.d.ts" />
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postman from 'postman-collection';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_FILES, collectionAuthOf, DEV_BASE_URL, operationsOf, requestKey, type OpenApiDocument } from '../../scripts/clients/render';
import { api } from '../support/api';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Item {
  name: string;
  item?: Item[];
  request?: {
    method: string;
    url: { host?: string[]; path?: string[]; query?: { key: string; disabled?: boolean }[] };
    auth?: { type: string; [scheme: string]: unknown } | null;
    header?: { key: string; value: string }[];
    body?: { mode: string; raw?: string };
  };
  response?: { code: number }[];
}

let collection: { info: { _postman_id: string; name: string; schema: string }; auth: { type: string; bearer: { key: string; value: string }[] }; variable: { key: string; value: string }[]; item: Item[] };
let document: OpenApiDocument;
const requests: { folder: string; item: Item }[] = [];

beforeAll(async () => {
  collection = JSON.parse(await readFile(path.join(root, CLIENT_FILES.collection), 'utf8'));
  const walk = (items: Item[], folder: string) => {
    for (const item of items) {
      if (item.item) walk(item.item, item.name);
      else requests.push({ folder, item });
    }
  };
  walk(collection.item, '');
  const response = await api<OpenApiDocument>('/v2/openapi.json');
  expect(response.status).toBe(200);
  document = response.body;
});

describe('the Postman collection', () => {
  it('is a v2.1 collection with the variables to set', () => {
    expect(collection.info).toMatchObject({ name: 'Helpdesk API', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' });
    expect(collection.info._postman_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const variables = Object.fromEntries(collection.variable.map((variable) => [variable.key, variable.value]));
    expect(variables).toMatchObject({ baseUrl: DEV_BASE_URL, apiKey: '' });
    // every `{{name}}` a request uses is a variable of the collection
    const used = new Set([...JSON.stringify(collection.item).matchAll(/\{\{(\w+)\}\}/g)].map((match) => match[1]!));
    for (const name of used) expect(variables, `{{${name}}}`).toHaveProperty(name);
  });

  it("parses with Postman's own SDK: every request, its bearer {{apiKey}} and its address on {{baseUrl}}", () => {
    const parsed = new postman.Collection(collection as never);
    const items: postman.Item[] = [];
    (parsed as unknown as { forEachItem(each: (item: postman.Item) => void): void }).forEachItem((item) => items.push(item));
    expect(items).toHaveLength(operationsOf(document).length);
    const variables = new postman.VariableScope({ values: [...collection.variable.filter((variable) => variable.key !== 'id'), { key: 'id', value: '7' }] } as never);
    const company = items.find((item) => item.name === 'Get a company')!;
    expect(variables.replaceIn(company.request.url.toString())).toBe(`${DEV_BASE_URL}/v2/companies/7.json`);
    const auth = company.getAuth();
    expect(auth.toJSON()).toMatchObject({ type: 'bearer' });
    expect(auth.parameters().get('token')).toBe('{{apiKey}}');
    const health = items.find((item) => requestKey(item.request.toJSON() as never) === 'GET /health')!;
    expect(health.getAuth().toJSON()).toMatchObject({ type: 'noauth' });
    expect(variables.replaceIn(health.request.url.toString())).toBe(`${DEV_BASE_URL}/health`);
  });

  it('authenticates with the bearer {{apiKey}}: every request inherits it but the public ones and the OAuth client endpoints', () => {
    expect(collection.auth).toEqual({ type: 'bearer', bearer: [{ key: 'token', value: '{{apiKey}}', type: 'string' }] });
    const byKey = new Map(operationsOf(document).map(({ method, path: route, operation }) => [`${method} ${route}`, operation]));
    const kinds: Record<string, number> = {};
    for (const { item } of requests) {
      const key = requestKey(item.request!);
      const expected = collectionAuthOf(document, byKey.get(key)!);
      kinds[expected] = (kinds[expected] ?? 0) + 1;
      const auth = item.request!.auth ?? null;
      if (expected === 'inherit') expect(auth, key).toBeNull();
      if (expected === 'none') expect(auth, key).toEqual({ type: 'noauth' });
      if (expected === 'clientSecretBasic') expect(auth, key).toMatchObject({ type: 'basic', basic: [{ key: 'username', value: '{{clientId}}' }, { key: 'password', value: '{{clientSecret}}' }] });
      expect(item.request!.header?.find((header) => header.key.toLowerCase() === 'authorization'), key).toBeUndefined();
    }
    expect(kinds.inherit).toBeGreaterThan(250);
    expect(kinds.none).toBeGreaterThan(10);
    expect(kinds.clientSecretBasic).toBe(2);
    const company = requests.find(({ item }) => requestKey(item.request!) === 'POST /v2/companies.json')!.item;
    expect(company.request!.auth).toBeNull();
    const documentRequest = requests.find(({ item }) => requestKey(item.request!) === 'GET /v2/openapi.json')!.item;
    expect(documentRequest.request!.auth).toEqual({ type: 'noauth' });
  });

  it('has one request per operation of the document, each on {{baseUrl}} in its group', () => {
    const operations = operationsOf(document);
    const keys = requests.map(({ item }) => requestKey(item.request!));
    expect(keys.filter((key, index) => keys.indexOf(key) !== index), 'no operation twice').toEqual([]);
    expect([...keys].sort()).toEqual(operations.map(({ method, path: route }) => `${method} ${route}`).sort());
    const groups = (document.tags as { name: string }[]).map((tag) => tag.name);
    expect(collection.item.map((folder) => folder.name)).toEqual(groups.filter((group) => requests.some(({ folder }) => folder === group)));
    for (const { folder, item } of requests) {
      const key = requestKey(item.request!);
      const { operation } = operations.find(({ method, path: route }) => `${method} ${route}` === key)!;
      expect(folder, key).toBe((operation as { tags: string[] }).tags[0]);
      expect(item.request!.url.host, key).toEqual(['{{baseUrl}}']);
      expect(item.name, key).toBe((operation as { summary: string }).summary);
      for (const response of item.response ?? []) expect(response.code, key).toBeLessThan(300);
    }
  });

  it('sends a body as its operation declares it, optional parameters off', () => {
    const create = requests.find(({ item }) => requestKey(item.request!) === 'POST /v2/companies.json')!.item.request!;
    expect(create.body?.mode).toBe('raw');
    expect(JSON.parse(create.body!.raw!)).toMatchObject({ company: { name: '<string>' } });
    expect(create.header).toContainEqual({ key: 'Content-Type', value: 'application/json' });
    const list = requests.find(({ item }) => requestKey(item.request!) === 'GET /v2/companies.json')!.item.request!;
    expect(list.url.query?.map((parameter) => parameter.key)).toEqual(expect.arrayContaining(['filter', 'orderBy', 'page', 'pageSize']));
    for (const parameter of list.url.query ?? []) expect(parameter.disabled, parameter.key).toBe(true);
    const one = requests.find(({ item }) => requestKey(item.request!) === 'GET /v2/companies/{id}.json')!.item.request!;
    expect(one.url.path).toEqual(['v2', 'companies', '{{id}}.json']);
  });
});
