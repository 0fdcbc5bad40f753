import { sql, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { z } from 'zod';
import { ADMINS, EVERYONE } from '../auth/access';
import { withEvents } from '../events/record-events';
import { bodyObject } from '../http/record-body';
import { jsonResponse } from '../http/responses';
import { defineRoute } from '../http/route';
import { deploymentDefault, forgetLimit } from './middleware';

const rateLimitSchema = z
  .object({
    requestsPerMinute: z
      .number()
      .int()
      .nullable()
      .meta({ description: "the installation's own limit; null: the deployment's default" }),
    default: z.number().int().meta({ description: "the deployment's default (120 unless the operator set another)" }),
    effective: z.number().int().meta({ description: 'what applies: requestsPerMinute, else the default' }),
  })
  .meta({ id: 'RateLimit' });

const answer = z.object({ ratelimit: rateLimitSchema });

const writeBody = bodyObject({
  ratelimit: bodyObject({
    requestsPerMinute: z
      .number()
      .int()
      .min(10)
      .max(100_000)
      .nullable()
      .meta({ description: "each teammate's requests a minute, 10 to 100,000; null: the default" }),
  }),
}).meta({ id: 'RateLimitWrite' });

/** The installation's own limit, as a statement: to run, or to send last in a write's batch. */
const ownLimit = (installationId: number): SQL =>
  sql`SELECT rate_limit_per_minute FROM installations WHERE id = ${installationId}`;

/** The answer, from `ownLimit`'s rows. */
function limitOf(c: Context<AppEnv>, rows: Record<string, unknown>[]) {
  const own = rows[0]?.rate_limit_per_minute;
  const fallback = deploymentDefault(c.env);
  const requestsPerMinute = own === null || own === undefined ? null : Number(own);
  return { ratelimit: { requestsPerMinute, default: fallback, effective: requestsPerMinute ?? fallback } };
}

async function read(c: Context<AppEnv>) {
  const { rows } = await c.var.db.http.execute(ownLimit(c.var.principal.installationId));
  return limitOf(c, rows);
}

/** `GET /v2/ratelimit.json`: the installation's requests a minute per teammate. */
export const getRateLimitRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/ratelimit.json',
    tag: 'Service',
    operationId: 'getRateLimit',
    roles: EVERYONE,
    summary: "The installation's rate limit: each teammate's requests a minute",
    description:
      "How many requests a minute each teammate of the installation may make: the installation's own `requestsPerMinute` (null when it has none), the deployment's `default` (120 unless the operator set another) and the `effective` limit, the first else the second. Past it, a request is a 429 with `Retry-After`. See docs/api-conventions.md.",
    responses: { 200: jsonResponse('the limit', answer) },
  },
  async (c) => c.json(await read(c), 200),
);

/** `PUT /v2/ratelimit.json`: sets it (owners and admins), with an event of the installation: one exchange. */
export const putRateLimitRoute = defineRoute(
  {
    method: 'put',
    path: '/v2/ratelimit.json',
    tag: 'Service',
    operationId: 'setRateLimit',
    roles: ADMINS,
    summary: "Sets the installation's rate limit",
    description:
      "Sets the installation's own limit of requests a minute per teammate, 10 to 100,000, or null to fall back on the deployment's default; a value outside that range is a 400 naming it. Records a `settingChanged` event of the installation with the limit before and after, and answers the limit as it now stands; this isolate applies it at once, the others within 30 seconds. See docs/api-conventions.md.",
    request: { body: { content: { 'application/json': { schema: writeBody } }, required: true } },
    example: { body: { ratelimit: { requestsPerMinute: 600 } } },
    responses: { 200: jsonResponse('the limit as it now stands', answer) },
  },
  async (c) => {
    const who = c.var.principal;
    const { requestsPerMinute } = c.req.valid('json').ratelimit;
    // one batch: the change with its event (the limit before and after), then the limit read back
    const change = sql`UPDATE installations n SET rate_limit_per_minute = ${requestsPerMinute} FROM installations o
     WHERE n.id = ${who.installationId} AND o.id = n.id RETURNING n.id, o.rate_limit_per_minute AS before`;
    const data = sql`jsonb_build_object('rateLimitPerMinute', jsonb_build_object('before', r.before, 'after', ${requestsPerMinute}::int))`;
    const [, now] = await c.var.db.batch([
      withEvents(change, who, 'installations', 'settingChanged', data),
      ownLimit(who.installationId),
    ]);
    forgetLimit(who.installationId);
    return c.json(limitOf(c, now!), 200);
  },
);
