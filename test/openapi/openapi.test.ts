import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support/api';

/** The document, as any client reads it. */
let doc: any;
beforeAll(async () => {
  const response = await api('/v2/openapi.json');
  expect(response.status).toBe(200);
  doc = response.body;
});

const companyOperations = [
  ['get', '/v2/companies.json', 'listCompanies'],
  ['post', '/v2/companies.json', 'createCompany'],
  ['get', '/v2/companies/{id}.json', 'getCompany'],
  ['patch', '/v2/companies/{id}.json', 'updateCompany'],
  ['put', '/v2/companies/{id}.json', 'replaceCompany'],
  ['delete', '/v2/companies/{id}.json', 'deleteCompany'],
  ['patch', '/v2/companies/update.json', 'updateCompanies'],
  ['delete', '/v2/companies/delete.json', 'deleteCompanies'],
  ['post', '/v2/companies/import.csv', 'importCompanies'],
  ['post', '/v2/companies/migrate.json', 'migrateCompanies'],
  ['post', '/v2/companies/{id}/pmsync.json', 'syncCompany'],
] as const;

const schema = (name: string) => doc.components.schemas[name];
const jsonSchemaOf = (operation: any, status: number) =>
  operation.responses[String(status)].content['application/json'].schema;

describe('GET /v2/openapi.json', () => {
  it('is public OpenAPI 3.1 whose every reference resolves', async () => {
    const response = await api('/v2/openapi.json');
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(doc.openapi).toBe('3.1.0');
    const refs = [...response.text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(50);
    for (const name of refs) expect(schema(name), name).toBeDefined();
    expect(response.text).not.toContain('#/$defs/');
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('names every operation, uniquely, as a name reads (listCompanies, getCompany)', () => {
    const ids: string[] = Object.values(doc.paths).flatMap((methods: any) =>
      Object.values(methods).map((operation: any) => operation.operationId),
    );
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z]+$/);
    for (const [method, path, id] of companyOperations)
      expect(doc.paths[path]?.[method]?.operationId, `${method} ${path}`).toBe(id);
  });

  it('groups operations as the spec groups them, named in words, tickets and their thread first', () => {
    const tags = doc.tags.map((tag: { name: string }) => tag.name);
    for (const group of [
      'AI usage',
      'Agent invites',
      'Announcement',
      'Anomalies',
      'App features',
      'App features installations',
      'Apps',
      'Background jobs',
      'Business hours',
      'Business hours holidays',
      'Business hours schedules',
      'Canned responses',
      'Companies',
      'Contact forms',
      'Conversation messages',
      'Conversations',
      'API keys',
      'OAuth',
      'SLAs',
      'PM connection',
    ]) {
      expect(tags).toContain(group);
    }
    expect(tags.slice(0, 3)).toEqual(['Tickets', 'Files', 'Customers']);
    for (const name of tags) expect(name, 'no run-together PascalCase').not.toMatch(/[a-z][A-Z]/);
    for (const methods of Object.values(doc.paths) as any[]) {
      for (const operation of Object.values(methods) as any[]) expect(tags).toContain(operation.tags[0]);
    }
    expect(doc.paths['/v2/companies.json'].get.tags).toEqual(['Companies']);
    expect(doc.paths['/v2/announcement.json'].get.tags).toEqual(['Announcement']);
    expect(doc.paths['/v2/announcements.json'].get.tags).toEqual(['Announcement']);
    expect(doc.paths['/v2/businesshoursholidays.json'].get.tags).toEqual(['Business hours holidays']);
  });

  it('sums every operation up in words, with its article, and says who may call it', () => {
    const operations = Object.values(doc.paths).flatMap((methods: any) => Object.values(methods)) as any[];
    for (const operation of operations) {
      expect(operation.summary, operation.operationId).not.toMatch(/\b[a-z]+[A-Z]\w*/);
      expect(operation.summary, operation.operationId).not.toMatch(/\ba [aeio]/i);
      expect(operation.description, operation.operationId).toMatch(
        /(Who may call it: [a-z, ]+\.|Called without an API key\.)$/,
      );
    }
    expect(doc.paths['/v2/agentinvites.json'].post.summary).toBe('Create an agent invite');
    expect(doc.paths['/v2/ticketsources.json'].post.summary).toBe('Create a ticket source');
    expect(doc.paths['/v2/apikeys.json'].get.summary).toBe('List API keys');
    expect(doc.paths['/v2/users/{id}.json'].get.summary).toBe('Get a user');
    expect(doc.paths['/v2/companies.json'].post.description).toMatch(
      /^Creates a company from the body[^]*Who may call it: owners, admins and agents\.$/,
    );
    expect(doc.paths['/v2/openapi.json'].get.description).toMatch(/Called without an API key\.$/);
  });

  it('describes every operation in a paragraph of its own before saying who may call it (issue 34)', () => {
    const operations = Object.values(doc.paths).flatMap((methods: any) => Object.values(methods)) as any[];
    expect(operations.length).toBeGreaterThan(100);
    const undescribed = operations.filter((operation) => {
      const own = String(operation.description ?? '')
        .replace(/(^|\n\n)(Who may call it: [a-z, ]+\.|Called without an API key\.)$/, '')
        .trim();
      return own.length < 40;
    });
    expect(undescribed.map((operation) => operation.operationId)).toEqual([]);
  });

  it('declares the upload form, so a reader can try it', () => {
    const form = doc.paths['/v2/files/upload'].post.requestBody.content['multipart/form-data'].schema;
    expect(form.required).toEqual(expect.arrayContaining(['key', 'policy', 'x-amz-signature', 'Content-Type', 'file']));
    expect(form.properties.file).toMatchObject({ type: 'string', format: 'binary' });
  });

  it('describes a list: its parameters, its answers, a typed page and included records', () => {
    const list = doc.paths['/v2/companies.json'].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual([
      'filter',
      'orderBy',
      'orderMode',
      'page',
      'pageSize',
      'includes',
      'fields',
    ]);
    const orderBy = list.parameters.find((p: { name: string }) => p.name === 'orderBy');
    expect(orderBy.schema.enum).toEqual(
      expect.arrayContaining(['name', 'customersCount', 'address.country', 'domains.name', 'inboxes.id', 'phones']),
    );
    expect(list.parameters.find((p: { name: string }) => p.name === 'pageSize').schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
    });
    expect(Object.keys(list.responses)).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    const body = schema(jsonSchemaOf(list, 200).$ref.split('/').pop());
    expect(body.required).toEqual(['companies', 'included', 'meta', 'pagination']);
    expect(body.properties.meta.properties.page).toEqual({ $ref: '#/components/schemas/PageMeta' });
    expect(schema('PageMeta').properties.count.type).toBe('integer');
    expect(body.properties.pagination).toEqual({ $ref: '#/components/schemas/Pagination' });
    expect(schema('Pagination').properties).toMatchObject({
      records: { type: 'integer' },
      hasMorePages: { type: 'boolean' },
    });
    // `included` names each related type with an array of its records, not `{}`.
    expect(body.properties.included.properties.domains.items).toEqual({ $ref: '#/components/schemas/Domain' });
    expect(body.properties.included.properties.customers.items).toEqual({ $ref: '#/components/schemas/Customer' });
  });

  it('describes one record: the path id an integer, a 404 with the error body', () => {
    const get = doc.paths['/v2/companies/{id}.json'].get;
    expect(get.parameters[0]).toMatchObject({
      name: 'id',
      in: 'path',
      required: true,
      schema: { type: 'integer', minimum: 1 },
    });
    expect(get.responses['404'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(schema('Error').properties.errors.type).toBe('array');
    expect(jsonSchemaOf(get, 200)).toEqual({ $ref: '#/components/schemas/CompanyBody' });
    expect(schema('CompanyBody').properties.company).toEqual({ $ref: '#/components/schemas/Company' });
    expect(schema('Company').properties.customersCount.type).toBe('integer');
  });

  it('describes a body in both forms, wrapped and bare, with the schema the route validates with', () => {
    const create = doc.paths['/v2/companies.json'].post.requestBody.content['application/json'].schema;
    expect(create.anyOf).toHaveLength(2);
    const [wrapped, bare] = create.anyOf;
    expect(wrapped.properties.company).toEqual({ $ref: '#/components/schemas/CompanyCreate' });
    expect(bare).toEqual({ $ref: '#/components/schemas/CompanyCreate' });
    const record = schema('CompanyCreate');
    expect(record.required).toEqual(['name']);
    expect(record.properties.permission.enum).toEqual(['own', 'all']);
    expect(record.properties.domains.type).toEqual(['array', 'null']);
    expect(record.properties.domains.items.properties.name).toBeDefined();
    expect(record.additionalProperties).not.toBe(false);
    // What a client read may be sent back: the read-only properties are there, marked so.
    expect(record.properties.createdAt).toMatchObject({ readOnly: true });
    expect(record.properties.customersCount).toMatchObject({ readOnly: true });
  });

  it('types references as references and says which properties may be null', () => {
    const reference = schema('CannedResponse').properties.inbox;
    expect(reference.type).toEqual(['object', 'null']);
    expect(reference.properties).toMatchObject({
      id: { type: 'integer' },
      type: { type: 'string', enum: ['inboxes'] },
    });
    expect(schema('Company').properties.createdBy.type).toEqual(['object', 'null']);
    expect(schema('App').properties.installedAt.type).toEqual(['string', 'null']);
    expect(schema('Conversation').properties.lastMessageAt.type).toEqual(['string', 'null']);
    expect(schema('Conversation').properties.contactForm.type).toEqual(['object', 'null']);
    expect(schema('Company').properties.name.type).toBe('string');
  });

  it("gives every answer a schema: the conversation create, the public history, the import's Location", () => {
    expect(jsonSchemaOf(doc.paths['/v2/conversations.json'].post, 201)).toEqual({
      $ref: '#/components/schemas/ConversationCreatedBody',
    });
    expect(schema('ConversationCreatedBody').properties.conversation.properties.socketUrl.type).toBe('string');
    expect(jsonSchemaOf(doc.paths['/v2/conversationmessages/history/{token}.json'].get, 200)).toEqual({
      $ref: '#/components/schemas/ConversationHistoryMessagesBody',
    });
    // the public history's records carry no AI draft or similarity (issue 31)
    expect(Object.keys(schema('ConversationHistoryMessage').properties)).not.toContain('aiDraft');
    const created = doc.paths['/v2/companies/import.csv'].post.responses['201'];
    expect(created.headers.Location).toMatchObject({ required: true, schema: { type: 'string' } });
  });

  it('says which operations are public', () => {
    for (const [path, method] of [
      ['/v2/openapi.json', 'get'],
      ['/v2/docs', 'get'],
      ['/health', 'get'],
      ['/v2/conversationmessages/history/{token}.json', 'get'],
    ] as const) {
      expect(doc.paths[path][method].security, `${method} ${path}`).toEqual([]);
    }
    expect(doc.paths['/v2/companies.json'].get.security).toBeUndefined();
    expect(doc.security).toEqual([{ bearer: [] }, { basic: [] }]);
  });
});

describe('the endpoint table of docs/endpoints.md', () => {
  it('every row marked implemented is in the OpenAPI document', async () => {
    const table = readFileSync(new URL('../../docs/endpoints.md', import.meta.url), 'utf8');
    const implemented = [...table.matchAll(/^\| (\w+) \| `([^`]+)` \| implemented \|/gm)].map(([, method, path]) => [
      method!.toLowerCase(),
      path!.replace(/:(\w+)/g, '{$1}'),
    ]);
    expect(implemented.length).toBeGreaterThan(50);
    const documentedIds = (name: string) => name.replace(/\{\w+\}/g, '{}');
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops as object).map((m) => `${m} ${documentedIds(path)}`),
      ),
    );
    for (const [method, path] of implemented)
      expect(documented.has(`${method} ${documentedIds(path!)}`), `${method} ${path}`).toBe(true);
  });
});
