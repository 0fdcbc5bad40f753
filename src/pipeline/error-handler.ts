import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from '../app-env';
import { sqlState } from '../db/errors';
import { TokenKeyError } from '../lib/crypto';
import { errorField, log } from '../lib/log';
import { databaseUnavailable, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/database-unavailable';
import { ApiError, type ErrorCode } from '../http/errors';
import { malformedParameter } from './mount';

const CODES: Partial<Record<number, ErrorCode>> = {
  400: 'invalid',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'notFound',
  413: 'tooLarge',
  415: 'unsupportedMediaType',
};

/**
 * Every failure leaves as the one error body: a database that does not answer is a 503 the
 * client may retry; anything else unexpected is a 500 that reveals nothing.
 */
export function handleError(error: Error, c: Context<AppEnv>): Response {
  if (error instanceof ApiError) {
    return c.json({ errors: error.errors }, error.status, error.headers);
  }
  // the server lacks (or has a bad) key: nothing the caller can fix, so not a 4xx; the operators are told
  if (error instanceof TokenKeyError) {
    log('error', 'PM_TOKEN_KEY cannot be used', {
      method: c.req.method,
      route: c.var.route ?? null,
      why: error.message,
    });
    return c.json(
      {
        errors: [
          { code: 'notConfigured', source: 'PM_TOKEN_KEY', detail: `the server cannot use its key: ${error.message}` },
        ],
      },
      503,
    );
  }
  // Thrown by Hono or a library before our code ran (a body it could not read, say): its status, our body.
  if (error instanceof HTTPException && error.status < 500) {
    const source = error.status === 413 || error.status === 415 ? { source: 'body' } : {};
    return c.json(
      {
        errors: [
          {
            code: CODES[error.status] ?? 'invalid',
            ...source,
            detail: error.message || 'the request cannot be served',
          },
        ],
      },
      error.status,
    );
  }
  // the request's id comes from the log context (`withLogContext`, request-context.ts)
  const where = { method: c.req.method, route: c.var.route ?? null };
  // A data exception (a value out of a column's range, say) is the request's fault: never a 500.
  const state = sqlState(error).code;
  // 54000: a program limit (a text too long for its search index, say), met by what the request sent
  if (state === '54000') {
    log('warn', 'a value past a database limit', { ...where, code: state });
    return c.json({ errors: [{ code: 'invalid', detail: 'a value is too large for what stores it' }] }, 400);
  }
  if (state?.startsWith('22')) {
    log('warn', 'a value the database refused', { ...where, code: state });
    return c.json({ errors: [{ code: 'invalid', detail: 'a value is out of range or malformed for its field' }] }, 400);
  }
  if (databaseUnavailable(error)) {
    log('error', 'database unavailable', { ...where, error: errorField(error) });
    return c.json(
      {
        errors: [
          {
            code: 'unavailable',
            detail: `the database does not answer; try again in ${UNAVAILABLE_RETRY_AFTER_SECONDS} seconds`,
          },
        ],
      },
      503,
      { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
    );
  }
  log('error', 'request failed', { ...where, error: errorField(error) });
  return c.json({ errors: [{ code: 'internal', detail: 'something went wrong on our side; try again' }] }, 500);
}

/**
 * A thrown value that is no `Error` as one. Hono hands only errors to the error handler; anything
 * else (the WebSocket's `error` event the database driver rejects with when it cannot connect)
 * would leave the request unanswered but for the runtime's bare 500.
 */
export function asError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  let what = String(thrown);
  if (typeof thrown === 'object' && thrown !== null) {
    const { type, message } = thrown as { type?: unknown; message?: unknown };
    what = `${thrown.constructor?.name ?? 'an object'}${typeof type === 'string' ? ` (${type})` : ''}${typeof message === 'string' && message ? `: ${message}` : ''}`;
  }
  return new Error(`thrown, not an Error: ${what}`, { cause: thrown });
}

/** No route: a malformed integer in a path that would otherwise name one is a 400 naming it; anything else a 404. */
export function handleNotFound(c: Context<AppEnv>): Response {
  const path = new URL(c.req.url).pathname;
  const malformed = malformedParameter(c.req.method, path);
  if (malformed) return c.json({ errors: malformed.errors }, 400);
  return c.json({ errors: [{ code: 'notFound', source: 'path', detail: `no route ${c.req.method} ${path}` }] }, 404);
}
