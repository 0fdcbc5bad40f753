import { z } from 'zod';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/database-unavailable';
import { jsonResponse } from '../http/responses';
import { defineRoute } from '../http/route';
import {
  BACKLOG_AGE_THRESHOLD_SECONDS,
  backlogOf,
  backlogQuery,
  backlogSchema,
  isDegraded,
  type Backlog,
} from './backlog';

/** How long the database has to answer before the service reports it unavailable: the answer comes within 2 s. */
const HEALTH_DATABASE_TIMEOUT_MS = 1_500;

const environment = z.string().nullable();

const healthSchema = z
  .object({
    status: z.enum(['ok', 'degraded']).meta({
      description:
        'ok, or degraded when a part of the backlog is past its threshold (`overThreshold`): the service answers, but work it owes is late',
    }),
    database: z.literal('ok').meta({ description: 'Postgres answered the backlog query within 1.5 s' }),
    environment,
    backlog: backlogSchema,
  })
  .meta({ id: 'Health' });

const unavailableSchema = z
  .object({
    status: z.literal('unavailable'),
    database: z.literal('unreachable').meta({ description: 'Postgres did not answer within 1.5 s, or failed' }),
    environment,
  })
  .meta({ id: 'HealthUnavailable' });

/**
 * `GET /health`: whether the service can serve, that is whether its database answers (503 when it
 * does not), and the work it owes, read in the same single query: the outbox, the webhook
 * deliveries, the outgoing mail and the dead letters. A backlog past its threshold is `degraded`
 * in the body, still a 200: the service answers, and a load balancer must not take it out of
 * rotation for work that waits.
 */
export const getHealthRoute = defineRoute(
  {
    method: 'get',
    path: '/health',
    tag: 'Service',
    operationId: 'getHealth',
    public: true,
    summary: 'Whether the service and its database answer, and the backlog of work it owes',
    description: `200 while the database answers, with the backlog: write events not yet dispatched, pending webhook deliveries, queued outgoing mail, and dead letters not yet replayed or discarded. \`status\` is \`degraded\` when the oldest undispatched event, the most overdue delivery or mail is over ${BACKLOG_AGE_THRESHOLD_SECONDS} s, or any dead letter is open; 503 when the database does not answer within 1.5 s (docs/operations.md, "Health").`,
    responses: {
      200: jsonResponse('serving, with its backlog', healthSchema),
      503: jsonResponse('the database does not answer', unavailableSchema),
    },
  },
  async (c) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<undefined>(
      (resolve) => (timer = setTimeout(() => resolve(undefined), HEALTH_DATABASE_TIMEOUT_MS)),
    );
    const query = c.var.db.http.execute(backlogQuery).then(
      ({ rows }) => backlogOf(rows[0]!),
      () => undefined,
    );
    const backlog: Backlog | undefined = await Promise.race([query, timeout]);
    clearTimeout(timer);
    const env = c.env.ENVIRONMENT ?? null;
    return backlog
      ? c.json(
          {
            status: isDegraded(backlog) ? ('degraded' as const) : ('ok' as const),
            database: 'ok' as const,
            environment: env,
            backlog,
          },
          200,
        )
      : c.json({ status: 'unavailable' as const, database: 'unreachable' as const, environment: env }, 503, {
          'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS),
        });
  },
);
