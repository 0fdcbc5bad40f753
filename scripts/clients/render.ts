// What `npm run clients` writes, made from the OpenAPI document alone (no Worker, no database):
// the typed client's types (openapi-typescript) and a Postman v2.1 collection
// (openapi-to-postmanv2). The same document always gives the same bytes: no timestamps, no random
// ids, no faked random values, so test/clients/generated.test.ts can compare them with the
// committed files.
import { createRequire } from 'node:module';
import openapiTS, { astToString } from 'openapi-typescript';
import { convertV2, type CollectionResult } from 'openapi-to-postmanv2';

/** The generated files, relative to the repository's root. */
export const CLIENT_FILES = {
  types: 'clients/typescript/schema.ts',
  collection: 'clients/postman/helpdesk.postman_collection.json',
} as const;

/** What regenerates them. */
export const REGENERATE = 'npm run clients';

/** Where `npm run dev` serves the API: the collection's `baseUrl` until the user sets theirs. */
export const DEV_BASE_URL = 'http://127.0.0.1:8787';

/**
 * The collection's own id, always the same: importing a newer collection into Postman replaces
 * the one imported before instead of adding a second.
 */
const COLLECTION_ID = '6f0b8f3e-7d55-4c8e-9a51-4b1f0c2d9e21';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type SecurityRequirement = Record<string, string[]>;

interface Operation {
  operationId?: string;
  security?: SecurityRequirement[];
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>> & Record<string, unknown>>;
  security?: SecurityRequirement[];
  [key: string]: unknown;
}

/** Every operation of the document: its method (upper case), path and declaration. */
export function operationsOf(document: OpenApiDocument): { method: string; path: string; operation: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ method: method.toUpperCase(), path, operation: item[method]! })),
  );
}

/** Each generated file's contents, by its path (`CLIENT_FILES`). */
export async function renderClients(document: OpenApiDocument): Promise<Record<string, string>> {
  return {
    [CLIENT_FILES.types]: await renderTypes(document),
    [CLIENT_FILES.collection]: renderCollection(document),
  };
}

const TYPES_HEADER = `// The Helpdesk API's types, made from GET /v2/openapi.json by \`${REGENERATE}\`
// (scripts/generate-clients.ts, openapi-typescript). Do not edit: regenerate.
`;

/** `paths`, `components` and `operations` of the document as TypeScript types, properties sorted. */
export async function renderTypes(document: OpenApiDocument): Promise<string> {
  // openapi-typescript reads the object as it is: a copy, so the caller's document stays untouched
  const ast = await openapiTS(structuredClone(document) as never, { alphabetize: true, silent: true });
  return TYPES_HEADER + astToString(ast);
}

/** How a request of the collection authenticates, from its operation's `security`. */
export type CollectionAuth =
  /** the collection's bearer `{{apiKey}}` */
  | 'inherit'
  /** none: a public operation */
  | 'none'
  /** the OAuth app's `{{clientId}}` and `{{clientSecret}}` (the token and revocation endpoints) */
  | 'clientSecretBasic';

/**
 * An operation without `security` takes the document's (an API key as bearer or basic); `[]`, or
 * only `{}`, means public; an operation that takes an app's client secret is sent with it; any
 * other that takes a bearer token sends the collection's.
 */
export function collectionAuthOf(document: OpenApiDocument, operation: Operation): CollectionAuth {
  const security = operation.security ?? document.security ?? [];
  const schemes = security.flatMap((requirement) => Object.keys(requirement));
  if (schemes.includes('clientSecretBasic')) return 'clientSecretBasic';
  if (schemes.length === 0) return 'none';
  return 'inherit';
}

/** A Postman item: a folder (`item`) or a request. */
interface PostmanItem {
  id?: string;
  name: string;
  item?: PostmanItem[];
  request?: PostmanRequest;
  response?: { code?: number; id?: string; originalRequest?: PostmanRequest }[];
  [key: string]: unknown;
}

interface PostmanRequest {
  method: string;
  url: { host?: string[]; path?: string[] };
  auth?: unknown;
  header?: { key: string; value: string }[];
}

/**
 * An operation with a server of its own (`/`: those outside `/v2/`) comes out of the converter
 * without a host and with an empty first segment: it is sent to `{{baseUrl}}` as the others are.
 */
function onBaseUrl(request: PostmanRequest | undefined): void {
  if (!request) return;
  request.url.host ??= ['{{baseUrl}}'];
  while (request.url.path?.[0] === '') request.url.path.shift();
}

/** The method and OpenAPI path (`/v2/companies/{id}.json`) a request of the collection sends. */
export function requestKey(request: PostmanRequest): string {
  const segments = (request.url.path ?? []).map((segment) => segment.replace(/^:(\w+)$/, '{$1}').replace(/\{\{(\w+)\}\}/g, '{$1}'));
  return `${request.method.toUpperCase()} /${segments.join('/')}`;
}

/**
 * The Postman v2.1 collection: a folder per group (the document's tags, in its order), a request
 * per operation sorted by path and method, authenticated by the collection's bearer `{{apiKey}}`
 * against `{{baseUrl}}`; each request keeps its successful answers as saved examples. Parameters
 * and bodies show their types (`<string>`), optional parameters are present but off.
 */
export function renderCollection(document: OpenApiDocument): string {
  const collection = convertDeterministically(document);
  const byKey = new Map(operationsOf(document).map(({ method, path, operation }) => [`${method} ${path}`, operation]));
  const requests: PostmanItem[] = [];
  const tidy = (items: PostmanItem[]): PostmanItem[] =>
    items.map((item) => {
      const { id: _, ...rest } = item;
      if (rest.item) return { ...rest, item: tidy(rest.item).sort(byRequest) };
      requests.push(rest);
      onBaseUrl(rest.request);
      for (const response of rest.response ?? []) onBaseUrl(response.originalRequest);
      const operation = byKey.get(requestKey(rest.request!));
      if (!operation) throw new Error(`the converter made a request no operation declares: ${requestKey(rest.request!)}`);
      rest.request!.auth = postmanAuth(collectionAuthOf(document, operation));
      rest.response = (rest.response ?? []).filter((response) => (response.code ?? 0) >= 200 && (response.code ?? 0) < 300).map(({ id: __, ...response }) => response);
      return rest;
    });
  const item = tidy(collection.item);
  if (requests.length !== byKey.size) throw new Error(`the collection has ${requests.length} requests for the document's ${byKey.size} operations`);
  const pathVariables = (collection.variable as { key: string; value: string }[])
    .filter((variable) => variable.key !== 'baseUrl')
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const result = {
    info: {
      _postman_id: COLLECTION_ID,
      name: collection.info.name,
      description: {
        content: [
          // the document's opening paragraph: its guides are the reference page's (`/v2/docs`), not the collection's
          (collection.info.description?.content ?? '').split('\n\n')[0]!,
          `Set \`baseUrl\` (\`npm run dev\` serves ${DEV_BASE_URL}) and \`apiKey\` (a teammate's API key, sent as a bearer token), and the path variables a request names (\`id\`...).`,
          `Made from GET /v2/openapi.json by \`${REGENERATE}\`: do not edit, regenerate.`,
        ].join('\n\n'),
        type: 'text/markdown',
      },
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    auth: postmanAuth('bearer'),
    variable: [
      { key: 'baseUrl', value: DEV_BASE_URL, type: 'string' },
      { key: 'apiKey', value: '', type: 'string' },
      { key: 'clientId', value: '', type: 'string' },
      { key: 'clientSecret', value: '', type: 'string' },
      ...pathVariables.map(({ key, value }) => ({ key, value, type: 'string' })),
    ],
    item,
  };
  return `${JSON.stringify(result, null, 1)}\n`;
}

function postmanAuth(auth: CollectionAuth | 'bearer'): unknown {
  switch (auth) {
    case 'bearer':
      return { type: 'bearer', bearer: [{ key: 'token', value: '{{apiKey}}', type: 'string' }] };
    case 'inherit':
      return null;
    case 'none':
      return { type: 'noauth' };
    case 'clientSecretBasic':
      return { type: 'basic', basic: [{ key: 'username', value: '{{clientId}}', type: 'string' }, { key: 'password', value: '{{clientSecret}}', type: 'string' }] };
  }
}

const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE'];

/** Folders as they come (the document's group order); requests by path, then method. */
function byRequest(a: PostmanItem, b: PostmanItem): number {
  if (!a.request || !b.request) return 0;
  const [methodA, pathA] = requestKey(a.request).split(' ') as [string, string];
  const [methodB, pathB] = requestKey(b.request).split(' ') as [string, string];
  if (pathA !== pathB) return pathA < pathB ? -1 : 1;
  return METHOD_ORDER.indexOf(methodA) - METHOD_ORDER.indexOf(methodB);
}

interface ConvertedCollection {
  info: { name: string; description?: { content?: string } };
  item: PostmanItem[];
  variable: unknown[];
}

/**
 * openapi-to-postmanv2 fakes values with json-schema-faker and randexp, both on random numbers:
 * during the conversion (synchronous for an OpenAPI 3 document) both draw a constant instead,
 * so a schema always gives the same placeholder.
 */
function convertDeterministically(document: OpenApiDocument): ConvertedCollection {
  const require = createRequire(import.meta.url);
  const faker = require('openapi-to-postmanv2/assets/json-schema-faker.js') as { option(name: string): unknown; option(options: Record<string, unknown>): void };
  const fakerRandom = faker.option('random');
  const mathRandom = Math.random;
  const constant = () => 0;
  let converted: ConvertedCollection | undefined;
  let failure: unknown;
  faker.option({ random: constant });
  Math.random = constant;
  try {
    convertV2(
      { type: 'json', data: structuredClone(document) as never },
      {
        folderStrategy: 'Tags',
        parametersResolution: 'Schema',
        requestNameSource: 'Fallback',
        enableOptionalParameters: false,
        includeAuthInfoInExample: false,
        includeDeprecated: true,
      },
      (error, result?: CollectionResult) => {
        if (error) failure = error;
        else if (!result?.result || !result.output?.[0]) failure = new Error(`openapi-to-postmanv2: ${result?.reason ?? 'no collection'}`);
        else converted = result.output[0].data as ConvertedCollection;
      },
    );
  } finally {
    Math.random = mathRandom;
    faker.option({ random: fakerRandom });
  }
  if (failure) throw failure;
  if (!converted) throw new Error('openapi-to-postmanv2 did not convert synchronously: its random values would not be fixed');
  return converted;
}
