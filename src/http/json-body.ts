import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { readBodyBytes } from './body-bytes';
import { ApiError } from './errors';

/** Bodies larger than this answer 413. */
export const MAX_BODY_BYTES = 1_000_000;

/**
 * Values nested deeper than this (objects and arrays) answer 400, checked before anything walks
 * the value recursively: no record of ours nests past a handful of levels, and a walk over a
 * value nested thousands deep would exhaust the stack.
 */
export const MAX_JSON_DEPTH = 32;

/** Where in a body a property sits: `["company", "domains", 0]`. */
export type JsonPath = readonly PropertyKey[];

/** Names a path of the body as the error body's `source` does. */
export type NamePath = (path: JsonPath) => string;

export function pathName(prefix: string, path: JsonPath): string {
  let source = prefix;
  for (const part of path)
    source += typeof part === 'number' ? `[${part}]` : source === '' ? String(part) : `.${String(part)}`;
  return source;
}

/**
 * A JSON media type, with parameters: `application/json`, `application/vnd.x+json;
 * charset=utf-8`. Exactly the grammar @hono/zod-openapi's own media-type check accepts, so a type
 * it would refuse (with a bare 415) is refused here first, with the error body: never
 * `application/json-seq`, `application/json, text/plain` or a parameter without a value.
 */
export const JSON_TYPE = /^application\/([a-z.-]+\+)?json(;\s*[a-z0-9-]+=[^;]+)*$/i;

const tooLarge = () =>
  new ApiError(413, [{ code: 'tooLarge', source: 'body', detail: `the body is larger than ${MAX_BODY_BYTES} bytes` }]);
const notJson = () =>
  new ApiError(415, [{ code: 'unsupportedMediaType', source: 'body', detail: 'send the body as application/json' }]);

/** A value met walking a body: its depth and where it sits, as a link to its parent (the path is only built for a problem). */
interface Spot {
  value: unknown;
  depth: number;
  parent: Spot | undefined;
  key: PropertyKey;
}

function pathOf(spot: Spot, last?: PropertyKey): PropertyKey[] {
  const path: PropertyKey[] = last === undefined ? [] : [last];
  for (let at: Spot | undefined = spot; at?.parent; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * The first place the value nests past `MAX_JSON_DEPTH`, or where a string holds NUL (Postgres
 * text cannot): found without recursion, whatever the depth, in the order the body is written.
 */
export function unsafeSpot(value: unknown): { path: JsonPath; problem: 'depth' | 'nul' } | undefined {
  const stack: Spot[] = [{ value, depth: 0, parent: undefined, key: '' }];
  while (stack.length > 0) {
    const spot = stack.pop()!;
    const current = spot.value;
    if (typeof current === 'string') {
      if (current.includes('\0')) return { path: pathOf(spot), problem: 'nul' };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (spot.depth >= MAX_JSON_DEPTH) return { path: pathOf(spot), problem: 'depth' };
    const depth = spot.depth + 1;
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) {
        const item: unknown = current[index];
        if (typeof item === 'string' || (item !== null && typeof item === 'object'))
          stack.push({ value: item, depth, parent: spot, key: index });
      }
      continue;
    }
    const keys = Object.keys(current);
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index]!;
      if (key.includes('\0')) return { path: pathOf(spot, key), problem: 'nul' };
      const item: unknown = (current as Record<string, unknown>)[key];
      if (typeof item === 'string' || (item !== null && typeof item === 'object'))
        stack.push({ value: item, depth, parent: spot, key });
    }
  }
  return undefined;
}

/** The property that holds a value nested too deep: the path's first named levels, not the whole chain. */
function holder(path: JsonPath): JsonPath {
  let end = 0;
  for (let index = 0; index < Math.min(path.length, 4); index++) if (typeof path[index] === 'string') end = index + 1;
  return path.slice(0, end);
}

/**
 * Reads a JSON body before it is validated: 415 when it is not sent as JSON, 413 when too large,
 * 400 when it is empty, does not parse, nests too deep or holds NUL. The parsed value is left
 * where the validator reads it (Hono's body cache). A route whose body is optional
 * (`body.required` not true, as the document then says) takes no body at all, or an empty one,
 * as `{}`.
 */
export function readJsonBody(
  name: NamePath,
  { required = true }: { required?: boolean } = {},
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!required && (await sentNothing(c))) {
      c.req.bodyCache.json = Promise.resolve({});
      c.req.bodyCache.text = Promise.resolve('{}') as never; // what the validator parses
      return next();
    }
    const text = await jsonBodyText(c);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw ApiError.invalid('body', 'the body is not valid JSON');
    }
    const spot = unsafeSpot(body);
    if (spot?.problem === 'depth')
      throw ApiError.invalid(name(holder(spot.path)), `is nested more than ${MAX_JSON_DEPTH} levels deep`);
    if (spot) throw ApiError.invalid(name(spot.path), 'must not contain NUL (\\u0000) characters');
    c.req.bodyCache.json = Promise.resolve(body);
    await next();
  };
}

/**
 * No body, or an empty one, with no type or a JSON type: what a client sends when it has nothing
 * to say (the platform's client confirms an upload with a bare `PATCH`). Bytes, if any, are read
 * within the limit and kept for what reads the body next; bytes without a type are a 415.
 */
async function sentNothing(c: Context<AppEnv>): Promise<boolean> {
  const type = c.req.header('content-type');
  if (type !== undefined && !JSON_TYPE.test(type)) return false;
  if (!c.req.raw.body) return true;
  const bytes = await readBodyBytes(c.req.raw, MAX_BODY_BYTES, tooLarge);
  c.req.bodyCache.arrayBuffer = Promise.resolve(bytes.buffer) as never; // Hono types its cache loosely; it holds promises
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === '') return true;
  if (type === undefined) throw notJson();
  c.set('bodyText', text);
  return false;
}

/**
 * A JSON body's exact text, read once (with the checks above) and kept: a guard that needs it
 * before the body is parsed (a signature over it) and the parsing itself share one reading.
 */
export async function jsonBodyText(c: Context<AppEnv>): Promise<string> {
  const read = c.get('bodyText');
  if (read !== undefined) return read;
  const text = await readJsonText(c);
  c.set('bodyText', text);
  return text;
}

async function readJsonText(c: Context<AppEnv>): Promise<string> {
  const type = c.req.header('content-type');
  if (type === undefined && (!c.req.raw.body || c.req.header('content-length') === '0'))
    throw ApiError.invalid('body', 'a JSON body is required');
  if (!type || !JSON_TYPE.test(type)) throw notJson();
  const text = new TextDecoder().decode(await readBodyBytes(c.req.raw, MAX_BODY_BYTES, tooLarge));
  if (text.trim() === '') throw ApiError.invalid('body', 'a JSON body is required');
  return text;
}
