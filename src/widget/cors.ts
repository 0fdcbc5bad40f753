import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv } from '../app-env';

/**
 * The widget runs on a customer's site and calls us from that origin. Any origin may: the
 * widget sends its credential (the form token) in `Authorization`, never a cookie, so there is
 * nothing ambient another site could ride on, and `*` needs no `Vary: Origin`.
 */
function widgetCors(methods: string[]): MiddlewareHandler<AppEnv> {
  return cors({
    origin: '*',
    allowMethods: methods,
    allowHeaders: ['authorization', 'content-type'],
    // A preflight answer the browser may reuse for a day: one preflight per visitor, not per chat.
    maxAge: 86_400,
  });
}

/**
 * CORS for `POST /v2/conversations.json` and its `OPTIONS` preflight, and only those: the
 * agent routes on the same path (the list) stay same-origin. Mounted on that exact path ahead
 * of the routes and their authentication: a preflight is answered here, and never opens the
 * database (the request's handle is opened on first use, `src/pipeline/request-context.ts`).
 */
export function conversationStartCors(): MiddlewareHandler<AppEnv> {
  const handle = widgetCors(['POST']);
  return (c, next) => (c.req.method === 'POST' || c.req.method === 'OPTIONS' ? handle(c, next) : next());
}

/** CORS for the public form settings, `GET /widget/forms/{formToken}.json`. */
export function formSettingsCors(): MiddlewareHandler<AppEnv> {
  return widgetCors(['GET']);
}
