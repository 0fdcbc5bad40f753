import { sql } from 'drizzle-orm';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { ApiError } from '../http/errors';

/** The methods a key may come with: the writes. */
export const IDEMPOTENT_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
/** How long a key's answer is replayed. */
export const KEPT_HOURS = 24;
/** A request holding its key longer than this is taken as dead (a Worker's request does not run so long): the key may be taken again. */
const RUNNING_FOR_SECONDS = 120;
/** The header as every authenticated write's operation declares it. */
export const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
  description:
    'makes the write safe to retry: the same key with the same request answers as the first did (24 hours, `Idempotent-Replayed: true`); with another request, 422; while the first runs, 409',
} as const;

/** What a key may be: 1 to 255 visible ASCII characters (a UUID, as clients usually send). */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** SHA-256 of what makes two requests the same: the method, the path and its query, the body. */
async function requestDigest(c: Context<AppEnv>): Promise<string> {
  const url = new URL(c.req.url);
  const head = new TextEncoder().encode(`${c.req.method} ${url.pathname}${url.search}\n`);
  // a JSON body as read already; any other (a multipart upload) as its bytes, not decoded as text
  const body =
    c.var.bodyText !== undefined
      ? new TextEncoder().encode(c.var.bodyText)
      : c.req.raw.body
        ? new Uint8Array(await c.req.raw.clone().arrayBuffer())
        : new Uint8Array();
  const bytes = new Uint8Array(head.length + body.length);
  bytes.set(head);
  bytes.set(body, head.length);
  return [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');
}

interface Held {
  mine: boolean | null;
  request_digest: string | null;
  status: string | null;
  response_status: number | null;
  response_type: string | null;
  response_body: string | null;
}

/**
 * `Idempotency-Key` on a write (Stripe's behaviour): the first request with a key runs, and its
 * answer (any below 500 but a 429) is kept for 24 hours; the same key with the same request (the
 * method, the path with its query, the body) gets that answer again, with `Idempotent-Replayed:
 * true`; with another request, a 422; while the first still runs, a 409. An answer of 500 or more,
 * or a 429, is not kept: the key is free for the retry. Keys are the caller's own within their
 * installation. Runs once the caller is known and the JSON body read, before the handler.
 */
export const idempotency: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = c.req.header('idempotency-key');
  if (key === undefined || !IDEMPOTENT_METHODS.has(c.req.method)) return next();
  if (!KEY.test(key))
    throw ApiError.invalid('Idempotency-Key', 'must be 1 to 255 visible ASCII characters (a UUID, say)');
  const who = c.var.principal;
  const db = c.var.db;
  const digest = await requestDigest(c);
  const owner = sql`installation_id = ${who.installationId} AND user_id = ${who.userId} AND key = ${key}`;
  // taken when free, expired, or held by a request of the same digest that died; else what holds it
  const { rows } = await db.http.execute(sql`
    WITH taken AS (
      INSERT INTO idempotency_keys (installation_id, user_id, key, request_digest) VALUES (${who.installationId}, ${who.userId}, ${key}, ${digest})
      ON CONFLICT (installation_id, user_id, key) DO UPDATE
         SET request_digest = EXCLUDED.request_digest, status = 'running', response_status = NULL, response_type = NULL, response_body = NULL, created_at = now(), started_at = now()
       WHERE idempotency_keys.created_at <= now() - make_interval(hours => ${KEPT_HOURS})
          OR (idempotency_keys.status = 'running' AND idempotency_keys.request_digest = EXCLUDED.request_digest
              AND idempotency_keys.started_at <= now() - make_interval(secs => ${RUNNING_FOR_SECONDS}))
      RETURNING true AS mine)
    SELECT (SELECT mine FROM taken) AS mine, k.request_digest, k.status, k.response_status, k.response_type, k.response_body
      FROM (SELECT 1) one LEFT JOIN idempotency_keys k ON k.installation_id = ${who.installationId} AND k.user_id = ${who.userId} AND k.key = ${key}`);
  const held = rows[0] as unknown as Held;
  if (held.mine !== true) {
    if (held.request_digest !== null && held.request_digest !== digest) {
      throw new ApiError(422, [
        {
          code: 'unprocessable',
          source: 'Idempotency-Key',
          detail:
            'this key was sent with another request (method, path, query or body): use a new key for a new request',
        },
      ]);
    }
    // (no row seen: another request took the key while this one looked)
    if (held.status !== 'done')
      throw ApiError.conflict(
        'Idempotency-Key',
        'a request with this key is still running: send it again once that one is answered',
      );
    const status = held.response_status!;
    const bodiless = status === 204 || status === 205 || status === 304;
    return new Response(bodiless ? null : held.response_body, {
      status,
      headers: { ...(held.response_type ? { 'content-type': held.response_type } : {}), 'idempotent-replayed': 'true' },
    });
  }
  await next();
  const status = c.res.status;
  if (status >= 500 || status === 429) {
    await db.http.execute(
      sql`DELETE FROM idempotency_keys WHERE ${owner} AND request_digest = ${digest} AND status = 'running'`,
    );
    return;
  }
  const body = await c.res.clone().text();
  await db.http.execute(sql`
    UPDATE idempotency_keys SET status = 'done', response_status = ${status}, response_type = ${c.res.headers.get('content-type')}, response_body = ${body}
     WHERE ${owner} AND request_digest = ${digest} AND status = 'running'`);
};
