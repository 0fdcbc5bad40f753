import { and, eq, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { requireOperator } from '../auth/operator';
import { deadLetters } from '../db/schema';
import { pageMetadata, pageMetaSchema, pageParam, pageSizeParam, paginationSchema } from '../engine';
import { MAX_ID } from '../http/params';
import { jsonResponse } from '../http/responses';
import { defineRoute } from '../http/route';
import { OPERATOR_NOTE, OPERATOR_SECURITY, operatorRefusals } from './operator-route';
import { SOURCE_QUEUE_NAMES } from './queues';
import { DEAD_LETTER_STATES, deadLetterJson, deadLetterSchema, type DeadLetterRecord } from './record';

const listQuery = z.object({
  state: z
    .enum([...DEAD_LETTER_STATES, 'all'])
    .optional()
    .default('open')
    .meta({ description: 'which dead letters: open (the default), replayed, discarded, or all' }),
  queue: z.enum(SOURCE_QUEUE_NAMES).optional().meta({ description: 'only those that died on this queue' }),
  installationId: z
    .string()
    .regex(/^[1-9]\d{0,9}$/, { error: 'must be an installation id: a positive integer' })
    .transform(Number)
    .pipe(z.number().max(MAX_ID, { error: 'must be an installation id: a positive integer' }))
    .optional()
    .meta({ type: 'integer', description: 'only those whose message names this installation' }),
  page: pageParam,
  pageSize: pageSizeParam,
});

const listAnswer = z
  .object({
    deadLetters: z.array(deadLetterSchema),
    meta: z.object({ page: pageMetaSchema }),
    pagination: paginationSchema,
  })
  .meta({ id: 'DeadLettersBody' });

function listCondition(query: z.infer<typeof listQuery>): SQL | undefined {
  const byState: Record<(typeof query)['state'], SQL | undefined> = {
    open: and(isNull(deadLetters.replayedAt), isNull(deadLetters.discardedAt)),
    replayed: isNotNull(deadLetters.replayedAt),
    discarded: isNotNull(deadLetters.discardedAt),
    all: undefined,
  };
  return and(
    byState[query.state],
    query.queue ? eq(deadLetters.queue, query.queue) : undefined,
    query.installationId ? eq(deadLetters.installationId, query.installationId) : undefined,
  );
}

/** `GET /operator/deadletters.json`: the dead letters, newest first; the open ones unless `state` says otherwise. One statement. */
export const listDeadLettersRoute = defineRoute(
  {
    method: 'get',
    path: '/operator/deadletters.json',
    tag: 'Service',
    operationId: 'listDeadLetters',
    public: true,
    security: OPERATOR_SECURITY,
    middleware: [requireOperator],
    summary: 'List the dead letters',
    description: `Queue messages whose consumer failed every delivery, stored as the dead-letter queues hand them over, newest first. ${OPERATOR_NOTE}`,
    request: { query: listQuery },
    responses: { 200: jsonResponse('a page of dead letters', listAnswer), ...operatorRefusals },
  },
  async (c) => {
    const query = c.req.valid('query');
    const where = listCondition(query) ?? sql`true`;
    const { rows } = await c.var.db.http.execute(sql`
    SELECT (SELECT count(*)::int FROM ${deadLetters} WHERE ${where}) AS count,
           (SELECT coalesce(json_agg(p.record ORDER BY p.id DESC), '[]'::json)
              FROM (SELECT ${deadLetters.id} AS id, ${deadLetterJson} AS record FROM ${deadLetters} WHERE ${where}
                     ORDER BY ${deadLetters.id} DESC LIMIT ${query.pageSize} OFFSET ${(query.page - 1) * query.pageSize}) p) AS records`);
    const row = rows[0]!;
    return c.json(
      {
        deadLetters: row.records as DeadLetterRecord[],
        ...pageMetadata(query.page, query.pageSize, Number(row.count)),
      },
      200,
    );
  },
);
