import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { EVERYONE } from '../../auth/access';
import { timeLogs } from '../../db/schema';
import { filteredScope, filterParam, refSchema } from '../../engine';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { timeLogsResource } from './timelogs.resource';

const GROUPS = ['ticket', 'user', 'day'] as const;

/** What a group is keyed by, as SQL and as the wire names it. */
const groupKeys: Record<(typeof GROUPS)[number], SQL> = {
  ticket: sql`jsonb_build_object('id', ${timeLogs.ticketId}, 'type', 'tickets')`,
  user: sql`jsonb_build_object('id', ${timeLogs.userId}, 'type', 'users')`,
  day: sql`to_char(${timeLogs.date} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
};

const sums = z.object({
  count: z.number().int().meta({ description: 'time logs' }),
  seconds: z.number().int(),
  billableSeconds: z.number().int(),
});

const totalsBody = z
  .object({
    totals: sums.meta({ description: 'over every time log the filter selects' }),
    groups: z
      .array(
        sums.extend({
          ticket: refSchema('tickets').optional(),
          user: refSchema('users').optional(),
          day: z.iso.date().optional().meta({ description: 'the UTC day of `date`' }),
        }),
      )
      .meta({ description: 'per `groupBy` key, largest `seconds` first (empty without `groupBy`)' }),
  })
  .meta({ id: 'TimeLogTotals' });

// float8, not int: a large team's seconds over years pass int4's 2.1 billion; as JSON numbers they stay exact far beyond
const SUMS = sql`count(*)::int AS count, coalesce(sum(${timeLogs.seconds}), 0)::float8 AS seconds,
  coalesce(sum(${timeLogs.seconds}) FILTER (WHERE ${timeLogs.billable}), 0)::float8 AS "billableSeconds"`;

/** `GET /v2/timelogs/totals.json`: time logged over a filter (a ticket, a company, a month), optionally per ticket, user or day. */
export const getTimeLogTotalsRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/timelogs/totals.json',
    tag: 'Tickets',
    operationId: 'getTimeLogTotals',
    roles: EVERYONE,
    summary: 'Time logged over a filter, in all and per ticket, user or day',
    description:
      'Sums the time logs the `filter` selects among those the caller sees (a ticket\'s with `{"ticket": 12}`, a company\'s month with `companies.id` and `date` bounds): how many, their seconds and their billable seconds. With `groupBy` (`ticket`, `user` or the UTC `day` of `date`) the same sums per group, largest `seconds` first; without it `groups` is empty. A filter name the time log list does not take, or any other query parameter, is a 400 naming it. See docs/resources/timelogs.md.',
    request: {
      query: z.strictObject({
        filter: filterParam(timeLogsResource),
        groupBy: z.enum(GROUPS).optional().meta({ description: 'one group a ticket, a user or a UTC day' }),
      }),
    },
    responses: { 200: jsonResponse('the sums', totalsBody) },
  },
  async (c) => {
    const { filter, groupBy } = c.req.valid('query');
    const where = filteredScope(filter, timeLogsResource, c.var.principal);
    const db = c.var.db.http;
    const [all] = (await db.execute(sql`SELECT ${SUMS} FROM ${timeLogs} WHERE ${where}`)).rows as z.infer<
      typeof sums
    >[];
    let groups: Record<string, unknown>[] = [];
    if (groupBy) {
      const key = groupKeys[groupBy];
      const { rows } = await db.execute(
        sql`SELECT ${key} AS key, ${SUMS} FROM ${timeLogs} WHERE ${where} GROUP BY 1 ORDER BY seconds DESC, 1::text`,
      );
      groups = rows.map(({ key: value, ...rest }) => ({ [groupBy]: value, ...rest }));
    }
    return c.json({ totals: all!, groups } as z.infer<typeof totalsBody>, 200);
  },
);
