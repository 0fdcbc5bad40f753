import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/database-unavailable';
import { jsonResponse } from '../http/responses';
import { defineRoute } from '../http/route';
import { defineModule } from '../modules/module';

/** How long the database has to answer before the service reports it unavailable: the answer comes within 2 s. */
export const HEALTH_DATABASE_TIMEOUT_MS = 1_500;

const healthSchema = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    database: z.enum(['ok', 'unreachable']).meta({ description: 'whether Postgres answered a query within 1.5 s' }),
    environment: z.string().nullable(),
  })
  .meta({ id: 'Health' });

/** `GET /health`: whether the service can serve, that is whether its database answers; 503 when it does not. */
const healthRoute = defineRoute({
  method: 'get', path: '/health', tag: 'Service', operationId: 'getHealth', public: true,
  summary: 'Whether the service and its database answer',
  responses: { 200: jsonResponse('serving', healthSchema), 503: jsonResponse('the database does not answer', healthSchema) },
}, async (c) => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), HEALTH_DATABASE_TIMEOUT_MS)));
  const query = c.var.db.http.execute(sql`SELECT 1`).then(() => true, () => false);
  const answers = await Promise.race([query, timeout]);
  clearTimeout(timer);
  const environment = c.env.ENVIRONMENT ?? null;
  return answers
    ? c.json({ status: 'ok' as const, database: 'ok' as const, environment }, 200)
    : c.json({ status: 'unavailable' as const, database: 'unreachable' as const, environment }, 503, { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) });
});

/** `/health`, for load balancers and monitors: public, cheap, one query. */
export const healthModule = defineModule({ name: 'health', routes: [healthRoute] });
