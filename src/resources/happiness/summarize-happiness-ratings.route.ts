import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS } from '../../auth/access';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { isCalendarDay } from '../../lib/time-values';

const day = z.string().refine(isCalendarDay, 'must be a day (YYYY-MM-DD)').optional();

const summaryQuery = z.strictObject({
  groupBy: z
    .enum(['agent', 'inbox'])
    .meta({ description: "agent: the ticket's agent when it was rated (null: unassigned); inbox: its inbox then" }),
  from: day.meta({ description: 'ratings given on or after this day (UTC)' }),
  to: day.meta({ description: 'ratings given on or before this day (UTC)' }),
});

const ref = z.object({ id: z.number().int(), type: z.string() });
const summarySchema = z
  .object({
    summary: z.array(
      z.object({
        agent: ref.nullable().optional(),
        inbox: ref.optional(),
        ratings: z.number().int(),
        averageScore: z.number(),
        options: z.array(z.object({ option: ref, name: z.string(), count: z.number().int() })),
      }),
    ),
  })
  .meta({ id: 'HappinessSummary' });

/**
 * `GET /v2/happinessratings/summary.json`: the installation's live ratings per agent or per inbox
 * (who had the ticket when it was rated): how many, the average score, and how many of each option.
 */
export const summarizeHappinessRatingsRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/happinessratings/summary.json',
    tag: 'HappinessRatings',
    operationId: 'summarizeHappinessRatings',
    roles: ADMINS,
    summary: 'Satisfaction per agent or per inbox',
    description:
      "The installation's live satisfaction ratings grouped by `groupBy`: per agent who had the ticket when it was rated (null: unassigned) or per inbox it was in, each with how many ratings, the average score and the count of each option. `from` and `to` (UTC days, inclusive) keep the ratings given or last changed between them. A `groupBy` other than `agent` or `inbox`, a day that is not `YYYY-MM-DD`, or any other query parameter is a 400 naming it. See docs/resources/happiness.md.",
    request: { query: summaryQuery },
    example: { query: { groupBy: 'agent', from: '2026-11-01', to: '2026-11-30' } },
    responses: {
      200: jsonResponse('one entry per agent or inbox with ratings', summarySchema),
      400: errorResponse('a bad group or day'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { groupBy, from, to } = c.req.valid('query');
    const key = groupBy === 'agent' ? sql`r.agent_id` : sql`r.inbox_id`;
    const { rows } = await c.var.db.http.execute(sql`
    SELECT g.key, g.ratings, g.average, g.options FROM (
      SELECT ${key} AS key, count(*)::int AS ratings, round(avg(r.score)::numeric, 2)::float8 AS average,
        (SELECT json_agg(json_build_object('id', x.option_id, 'name', x.name, 'count', x.n) ORDER BY x.display_order, x.option_id) FROM (
          SELECT r2.option_id, o.name, o.display_order, count(*)::int AS n FROM happiness_ratings r2 JOIN happiness_rating_options o ON o.id = r2.option_id
           WHERE r2.installation_id = ${who.installationId} AND r2.state = 'active' AND ${groupBy === 'agent' ? sql`r2.agent_id` : sql`r2.inbox_id`} IS NOT DISTINCT FROM ${key}
             AND (${from ?? null}::date IS NULL OR r2.updated_at >= ${from ?? null}::date) AND (${to ?? null}::date IS NULL OR r2.updated_at < ${to ?? null}::date + 1)
           GROUP BY r2.option_id, o.name, o.display_order) x) AS options
        FROM happiness_ratings r
       WHERE r.installation_id = ${who.installationId} AND r.state = 'active'
         AND (${from ?? null}::date IS NULL OR r.updated_at >= ${from ?? null}::date) AND (${to ?? null}::date IS NULL OR r.updated_at < ${to ?? null}::date + 1)
       GROUP BY ${key}) g
     ORDER BY g.key NULLS FIRST`);
    const summary = rows.map((row) => ({
      ...(groupBy === 'agent'
        ? { agent: row.key === null ? null : { id: Number(row.key), type: 'users' } }
        : { inbox: { id: Number(row.key), type: 'inboxes' } }),
      ratings: Number(row.ratings),
      averageScore: Number(row.average),
      options: (row.options as { id: number; name: string; count: number }[]).map((o) => ({
        option: { id: o.id, type: 'happinessratingoptions' },
        name: o.name,
        count: o.count,
      })),
    }));
    return c.json({ summary }, 200);
  },
);
