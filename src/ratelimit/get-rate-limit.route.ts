import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { EVERYONE } from '../auth/access';
import { jsonResponse } from '../http/responses';
import { defineRoute } from '../http/route';
import { answer, limitOf, ownLimit } from './settings';

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
