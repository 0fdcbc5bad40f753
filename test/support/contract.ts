import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { inject } from 'vitest';

/**
 * Every answer a test receives from the API (`api()`, or `checkAnswer` for a request it fetches
 * itself) is checked against what the OpenAPI document declares for that operation and status (JSON Schema 2020-12, with Ajv): a status the operation does not declare,
 * a body that does not match, or a content type it does not name fails the test. The document is
 * the Worker's own `GET /v2/openapi.json`, fetched once per test file.
 */

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  /** static segments matched first, as the router does: `update.json` is not an `{id}` */
  specificity: number;
  responses: Record<string, { content?: Record<string, unknown> }>;
  /** a file of the static assets, answered by the edge before the Worker (`x-static-asset`) */
  staticAsset: boolean;
}

interface Contract {
  operations: Operation[];
  ajv: Ajv2020;
}

const DOCUMENT_ID = 'https://helpdesk.test/openapi.json';
let contract: Promise<Contract> | undefined;
const validators = new Map<string, ValidateFunction>();

interface Server {
  url: string;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const pointer = (...parts: string[]) => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

async function load(): Promise<Contract> {
  const response = await fetch(`${inject('workerUrl')}/v2/openapi.json`);
  if (!response.ok) throw new Error(`GET /v2/openapi.json answered ${response.status}`);
  const document = (await response.json()) as {
    servers?: Server[];
    paths: Record<
      string,
      Record<
        string,
        {
          servers?: Server[];
          parameters?: { name: string; in: string; schema?: { type?: string } }[];
          responses: Operation['responses'];
          'x-static-asset'?: boolean;
        }
      >
    >;
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      // an operation answers under each of its servers' paths (the platform's `/desk/api` as well as `/`)
      const bases = (operation.servers ?? document.servers ?? [{ url: '/' }]).map(({ url }) =>
        escaped(url.replace(/\/$/, '')),
      );
      const integers = new Set(
        (operation.parameters ?? []).filter((p) => p.in === 'path' && p.schema?.type === 'integer').map((p) => p.name),
      );
      const source = template
        .split(/(\{\w+\})/)
        .map((part) => {
          const name = /^\{(\w+)\}$/.exec(part)?.[1];
          if (!name) return escaped(part);
          return integers.has(name) ? '[0-9]+' : '[^/]+';
        })
        .join('');
      operations.push({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^(?:${bases.join('|')})${source}$`),
        specificity: template.replace(/\{\w+\}/g, '').length,
        responses: operation.responses,
        staticAsset: operation['x-static-asset'] === true,
      });
    }
  }
  operations.sort((a, b) => b.specificity - a.specificity);
  return { operations, ajv };
}

function validatorFor(ajv: Ajv2020, ref: string): ValidateFunction {
  let validate = validators.get(ref);
  if (!validate) validators.set(ref, (validate = ajv.compile({ $ref: ref })));
  return validate;
}

const BODYLESS = new Set([101, 204, 304]);

/** An answer of the Worker, read and parsed. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * Reads an answer a test fetched itself and checks it against the document, as `api()` does with
 * its own: for a request `api()` cannot send (a streamed body, a body with no content type, a
 * Worker of the test's own). A mismatch fails the test.
 */
export async function checkAnswer<T = any>(
  method: string,
  url: string | URL,
  response: Response,
): Promise<ApiResponse<T>> {
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  await checkAgainstContract(method.toUpperCase(), new URL(url), response.status, response.headers, parsed, text);
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/**
 * `fetch`, with the answer checked against the document by `checkAnswer` (over a copy of it), for
 * a test that needs the Response itself: its redirect, its cookies, its bytes.
 */
export async function checkedFetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, init);
  await checkAnswer(init.method ?? 'GET', url, response.clone());
  return response;
}

/** Checks one answer against the document; throws naming what does not match. */
export async function checkAgainstContract(
  method: string,
  url: URL,
  status: number,
  headers: Headers,
  body: unknown,
  text: string,
): Promise<void> {
  // A CORS preflight is the browser's question, not an operation of the API.
  if (method === 'OPTIONS') return;
  const { operations, ajv } = await (contract ??= load());
  const operation = operations.find((candidate) => candidate.method === method && candidate.pattern.test(url.pathname));
  const what = `${method} ${url.pathname} answered ${status}`;
  if (!operation) {
    // A static file's path with a method other than GET or HEAD: the edge's 405, as the operation says, with its own body.
    if (status === 405 && operations.some((other) => other.staticAsset && other.pattern.test(url.pathname))) return;
    // No operation: the answer of a path no route serves (404) or a malformed id (400), the error body.
    if (status !== 404 && status !== 400 && status !== 405)
      throw new Error(`${what}, but the document has no such operation`);
    const validate = validatorFor(ajv, `${DOCUMENT_ID}#/components/schemas/Error`);
    if (!validate(body))
      throw new Error(
        `${what}: the body is not the error body: ${ajv.errorsText(validate.errors)}\n${text.slice(0, 2000)}`,
      );
    return;
  }
  const declared = operation.responses[String(status)] ?? operation.responses.default;
  if (!declared)
    throw new Error(
      `${what}, a status ${method} ${operation.template} does not declare (it declares ${Object.keys(operation.responses).join(', ')})`,
    );
  if (BODYLESS.has(status) || !declared.content) {
    if (text !== '' && !BODYLESS.has(status))
      throw new Error(`${what} with a body, where the document declares none:\n${text.slice(0, 500)}`);
    return;
  }
  const type = (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  // `*/*`: an answer of any type (a downloaded file, served with the type it was uploaded as)
  const media = Object.keys(declared.content).find(
    (name) => name.toLowerCase() === type || (name === '*/*' && type !== ''),
  );
  if (!media) {
    // A documented empty answer (`Prefer: return=minimal`) carries no content type.
    if (text === '' && type === '') return;
    throw new Error(
      `${what} as ${type || 'no content type'}, where the document declares ${Object.keys(declared.content).join(', ')}`,
    );
  }
  if (media !== 'application/json') return;
  const ref = `${DOCUMENT_ID}#/${pointer('paths', operation.template, method.toLowerCase(), 'responses', String(status) in operation.responses ? String(status) : 'default', 'content', media, 'schema')}`;
  const validate = validatorFor(ajv, ref);
  if (!validate(body)) {
    throw new Error(
      `${what}: the body does not match ${method} ${operation.template}'s ${status} schema: ${ajv.errorsText(validate.errors, { separator: '\n  ' })}\n${text.slice(0, 2000)}`,
    );
  }
}
