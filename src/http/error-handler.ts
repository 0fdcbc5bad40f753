import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { sqlState } from '../db/errors';
import { ApiError } from './errors';

/** Every failure leaves as the one error body; anything unexpected is a 500 that reveals nothing. */
export function handleError(error: Error, c: Context<AppEnv>): Response {
  if (error instanceof ApiError) {
    return c.json({ errors: error.errors }, error.status, error.headers);
  }
  // A data exception (a value out of a column's range, say) is the request's fault: never a 500.
  if (sqlState(error).code?.startsWith('22')) {
    return c.json({ errors: [{ code: 'invalid', detail: 'a value is out of range or malformed for its field' }] }, 400);
  }
  console.error(`${c.req.method} ${new URL(c.req.url).pathname} failed:`, error);
  return c.json({ errors: [{ code: 'internal', detail: 'something went wrong on our side; try again' }] }, 500);
}

export function handleNotFound(c: Context<AppEnv>): Response {
  return c.json(
    { errors: [{ code: 'notFound', source: 'path', detail: `no route ${c.req.method} ${new URL(c.req.url).pathname}` }] },
    404,
  );
}
