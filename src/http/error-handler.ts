import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from '../app-env';
import { sqlState } from '../db/errors';
import { errorField, log } from '../lib/log';
import { ApiError } from './errors';
import { malformedParameter } from './mount';

const CODES: Record<number, string> = { 400: 'invalid', 401: 'unauthorized', 403: 'forbidden', 404: 'notFound', 405: 'methodNotAllowed', 413: 'tooLarge', 415: 'unsupportedMediaType' };

/** Every failure leaves as the one error body; anything unexpected is a 500 that reveals nothing. */
export function handleError(error: Error, c: Context<AppEnv>): Response {
  if (error instanceof ApiError) {
    return c.json({ errors: error.errors }, error.status, error.headers);
  }
  // Thrown by Hono or a library before our code ran (a body it could not read, say): its status, our body.
  if (error instanceof HTTPException && error.status < 500) {
    return c.json({ errors: [{ code: CODES[error.status] ?? 'invalid', detail: error.message || 'the request cannot be served' }] }, error.status);
  }
  // A data exception (a value out of a column's range, say) is the request's fault: never a 500.
  if (sqlState(error).code?.startsWith('22')) {
    return c.json({ errors: [{ code: 'invalid', detail: 'a value is out of range or malformed for its field' }] }, 400);
  }
  log('error', 'request failed', { requestId: c.var.requestId, method: c.req.method, route: c.var.route ?? null, error: errorField(error) });
  return c.json({ errors: [{ code: 'internal', detail: 'something went wrong on our side; try again' }] }, 500);
}

/** No route: a malformed integer in a path that would otherwise name one is a 400 naming it; anything else a 404. */
export function handleNotFound(c: Context<AppEnv>): Response {
  const path = new URL(c.req.url).pathname;
  const malformed = malformedParameter(c.req.method, path);
  if (malformed) return c.json({ errors: malformed.errors }, 400);
  return c.json({ errors: [{ code: 'notFound', source: 'path', detail: `no route ${c.req.method} ${path}` }] }, 404);
}
