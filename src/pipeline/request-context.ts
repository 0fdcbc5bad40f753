import type { Context, MiddlewareHandler, Next } from 'hono';
import type { AppEnv } from '../app-env';
import { openDatabase } from '../db/client';
import { announceEvents } from '../events/announce';
import { configureEvents } from '../events/record-events';
import { log, withLogContext } from '../lib/log';
import { asError, handleError } from './error-handler';
import { withRequestId } from './error-request-id';
import { writeRequestMetric, type RequestFacts } from './request-metrics';

/** A request id a client may choose: short, printable, no spaces or quotes. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * Every request: its id (the client's `X-Request-Id` when sane, a new one otherwise), echoed on
 * the answer; its database handle (opened on first use), closed once answered, after the queue
 * is told to drain the events it wrote; its id in an error body too (`withRequestId`); and, when
 * it is done, one log line (id, installation, route pattern, status, duration and database round
 * trips) and the same facts as one Analytics Engine data point (`request-metrics.ts`).
 */
export const requestContext: MiddlewareHandler<AppEnv> = (c, next) => {
  const sent = c.req.header('x-request-id');
  const requestId = sent && SANE_REQUEST_ID.test(sent) ? sent : crypto.randomUUID();
  // every line logged while the request runs, and by the work it leaves behind, names it
  return withLogContext({ requestId }, () => handle(c, next, requestId));
};

async function handle(c: Context<AppEnv>, next: Next, requestId: string): Promise<void> {
  const started = Date.now();
  c.set('requestId', requestId);
  configureEvents(c.env);
  const db = openDatabase(c.env, { forRequest: true });
  c.set('db', db);
  try {
    await next();
  } catch (thrown) {
    // Hono answers every Error with the app's error handler; what else is thrown arrives here.
    if (thrown instanceof Error) throw thrown;
    c.res = handleError(asError(thrown), c);
  } finally {
    c.res = await withRequestId(c.res, requestId);
    try {
      c.res.headers.set('X-Request-Id', requestId);
    } catch {
      // A WebSocket upgrade's answer comes from the room with headers that cannot change.
    }
    c.executionCtx.waitUntil(
      db
        .afterBatches()
        .then(() => announceEvents(c.env, db))
        .finally(() => db.close()),
    );
    const facts: RequestFacts = {
      installationId: c.var.principal?.installationId ?? null,
      method: c.req.method,
      route: c.var.route ?? null,
      status: c.res.status,
      durationMs: Date.now() - started,
      dbRoundTrips: db.roundTrips(),
    };
    // the request's id comes from the log context, as on every line it writes
    log(c.res.status >= 500 ? 'error' : 'info', 'request', { ...facts });
    writeRequestMetric(c.env.REQUEST_METRICS, facts);
  }
}
