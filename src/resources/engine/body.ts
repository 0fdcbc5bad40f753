import type { Context } from 'hono';
import { z } from 'zod';
import { readBodyBytes } from '../../http/body-bytes';
import { ApiError, type ErrorEntry } from '../../http/errors';

/** Bodies larger than this answer 413. */
export const MAX_BODY_BYTES = 1_000_000;

/** Audit properties a client may send back (even as 0 or null) and that are ignored. */
const AUDIT_PROPERTIES = ['state', 'createdAt', 'createdBy', 'updatedAt', 'updatedBy', 'deletedAt', 'deletedBy'];

function without(value: unknown, names: readonly string[]): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const name of names) delete copy[name];
  return copy;
}

/**
 * What a client reads back about a whole record and may send back in it: ignored on create and
 * update (`included` and `meta` may sit inside a bare body an SDK sends back).
 */
export const RECORD_ENVELOPE = ['id', 'type', 'included', 'meta'] as const;

/** Accepts the read-only audit properties beside the schema's own and drops them. */
export function ignoringReadOnly<T extends z.ZodType>(schema: T, alsoIgnored: readonly string[] = []) {
  const names = [...AUDIT_PROPERTIES, ...alsoIgnored];
  return z.preprocess((value) => without(value, names), schema);
}

const tooLarge = () =>
  new ApiError(413, [{ code: 'tooLarge', source: 'body', detail: `the body is larger than ${MAX_BODY_BYTES} bytes` }]);

/** Reads a JSON body: 415 when it says it is not JSON, 413 when too large, 400 when it does not parse. */
export async function readJson(c: Context): Promise<unknown> {
  return (await readJsonText(c)).body;
}

/** `readJson`, keeping the exact text too (for a signature over it). */
export async function readJsonText(c: Context): Promise<{ text: string; body: unknown }> {
  const type = c.req.header('content-type');
  if (type && !/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
    throw new ApiError(415, [{ code: 'unsupportedMediaType', source: 'body', detail: 'send the body as application/json' }]);
  }
  const text = new TextDecoder().decode(await readBodyBytes(c.req.raw, MAX_BODY_BYTES, tooLarge));
  if (text.trim() === '') throw ApiError.invalid('body', 'a JSON body is required');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw ApiError.invalid('body', 'the body is not valid JSON');
  }
  return { text, body };
}

/** Where a NUL character sits in the value, if anywhere: Postgres text cannot hold one. */
function nulAt(value: unknown, path: PropertyKey[]): PropertyKey[] | undefined {
  if (typeof value === 'string') return value.includes('\0') ? path : undefined;
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const at = Array.isArray(value) ? Number(key) : key;
      const found = key.includes('\0') ? [...path, at] : nulAt(item, [...path, at]);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The record of a body that arrives wrapped (`{"company": {...}}`, with `included` and `meta`
 * beside it ignored) or bare (`{...}`).
 */
export function unwrapRecord(body: unknown, wrapper: string): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw ApiError.invalid('body', `expected a JSON object, bare or wrapped as {"${wrapper}": {...}}`);
  }
  const object = body as Record<string, unknown>;
  if (!(wrapper in object)) return object;
  const unknown = Object.keys(object).filter((key) => key !== wrapper && key !== 'included' && key !== 'meta');
  if (unknown.length) throw ApiError.invalid(unknown[0]!, 'unknown property');
  const record = object[wrapper];
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    throw ApiError.invalid(wrapper, 'expected an object');
  }
  return record as Record<string, unknown>;
}

function pathOf(prefix: string, path: readonly PropertyKey[]): string {
  let source = prefix;
  for (const part of path) source += typeof part === 'number' ? `[${part}]` : `.${String(part)}`;
  return source;
}

/** Zod's issues as entries of the error body, each naming the property at fault. */
export function issuesToErrors(issues: readonly z.core.$ZodIssue[], prefix: string): ErrorEntry[] {
  return issues.flatMap((issue): ErrorEntry[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ code: 'invalid', source: pathOf(prefix, [...issue.path, key]), detail: 'unknown property' }));
    }
    const missing = issue.code === 'invalid_type' && issue.input === undefined;
    return [{ code: 'invalid', source: pathOf(prefix, issue.path), detail: missing ? 'must be set' : issue.message }];
  });
}

/** Validates with the schema or answers 400 naming every property at fault. */
export function validate<T extends z.ZodType>(schema: T, value: unknown, prefix: string): z.output<T> {
  const nul = nulAt(value, []);
  if (nul) throw ApiError.invalid(pathOf(prefix, nul), 'must not contain NUL (\\u0000) characters');
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw new ApiError(400, issuesToErrors(result.error.issues, prefix));
  return result.data;
}
