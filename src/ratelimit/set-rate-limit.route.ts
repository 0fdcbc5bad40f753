import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS } from '../auth/access';
import { withEvents } from '../events/record-events';
import { bodyObject } from '../http/record-body';
import { jsonResponse } from '../http/responses';
import { defineRoute } from '../http/route';
import { forgetLimit } from './middleware';
import { answer, limitOf, ownLimit } from './settings';

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

/** `PUT /v2/ratelimit.json`: sets it (owners and admins), with an event of the installation: one exchange. */
export const setRateLimitRoute = defineRoute(
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
