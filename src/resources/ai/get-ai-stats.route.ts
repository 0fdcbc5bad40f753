import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { EVERYONE } from '../../auth/access';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { EDITED_FROM } from '../../lib/text-similarity';
import { includesParam } from '../../engine';
import { billingPeriodSql, startOfUtcDay } from './billing-period';
import { percentShares } from './shares';

/** `replyOutcome`'s bar for "sent as is": the reply equals its draft. */
const SENT_AS_IS = 100;

const percent = z.number().min(0).max(100);
const day = z.iso.date();

export const aiEffectivenessSchema = z
  .object({
    avgSimilarity: percent.describe('mean similarity of the sent replies to their AI drafts, one decimal; 0 when none'),
    sentAsIs: percent.describe('share of the replies sent exactly as drafted (similarity 100), one decimal'),
    edited: percent.describe(`share of the replies edited (similarity from ${EDITED_FROM} to below 100), one decimal`),
    rewritten: percent.describe(`share of the replies rewritten (similarity below ${EDITED_FROM}), one decimal`),
    repliesCount: z.number().int().describe('replies sent from an AI draft in the period'),
    periodStart: day,
    resetDate: day,
  })
  .meta({ id: 'AIEffectiveness' });

const answer = z
  .object({ aieffectiveness: aiEffectivenessSchema, included: z.object({}) })
  .meta({ id: 'AIEffectivenessBody' });

interface StatsRow {
  period_start: string;
  reset_date: string;
  replies: number;
  sent_as_is: number;
  edited: number;
  rewritten: number;
  /** numeric, as text; null when there are no replies */
  avg_similarity: string | null;
}

/**
 * `GET /v2/ai/stats.json`: how closely the replies sent this billing period kept to their AI drafts (docs/ai.md).
 *
 * The caller's installation's live agent replies that came from an AI draft, sent in the current
 * billing period: counted by outcome with `replyOutcome`'s thresholds, in one statement.
 */
export const getAiStatsRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/ai/stats.json',
    tag: 'AIUsage',
    operationId: 'getAiStats',
    roles: EVERYONE,
    summary: 'AI effectiveness in the current billing period',
    description:
      "How closely the agent replies sent from an AI draft in the caller's current billing period (in live chats, and on tickets with `aiDraft`) kept to their drafts: the mean similarity and the shares sent as is (similarity 100), edited (from 50) and rewritten (below 50), which add up to exactly 100.0, with how many replies they are of. A deleted reply leaves the figures; with no such replies every figure is 0. `includes` takes only `all`. See docs/ai.md.",
    request: { query: z.object({ includes: includesParam([]) }) },
    responses: { 200: jsonResponse('the effectiveness figures', answer) },
  },
  async (c) => {
    const who = c.var.principal;
    const { rows } = await c.var.db.http.execute(sql`
    SELECT to_char(p.period_start, 'YYYY-MM-DD') AS period_start,
           to_char(p.reset_date, 'YYYY-MM-DD') AS reset_date,
           count(m.similarity)::int AS replies,
           (count(*) FILTER (WHERE m.similarity >= ${SENT_AS_IS}))::int AS sent_as_is,
           (count(*) FILTER (WHERE m.similarity >= ${EDITED_FROM} AND m.similarity < ${SENT_AS_IS}))::int AS edited,
           (count(*) FILTER (WHERE m.similarity < ${EDITED_FROM}))::int AS rewritten,
           round(avg(m.similarity::numeric), 1)::text AS avg_similarity
    FROM installations i
    CROSS JOIN LATERAL ${billingPeriodSql(sql`i.billing_anchor`, sql`i.billing_interval`, sql`now()`)} p
    LEFT JOIN LATERAL (
      SELECT c.ai_similarity AS similarity FROM conversation_messages c
       WHERE c.installation_id = i.id
         AND c.sent_at >= ${startOfUtcDay(sql`p.period_start`)}
         AND c.sent_at < ${startOfUtcDay(sql`p.reset_date`)}
         AND c.author = 'agent'
         AND c.state = 'active'
         AND c.ai_draft IS NOT NULL
         AND c.ai_similarity IS NOT NULL
      UNION ALL
      SELECT t.ai_similarity FROM ticket_messages t
       WHERE t.installation_id = i.id
         AND t.ai_draft_id IS NOT NULL
         AND t.created_at >= ${startOfUtcDay(sql`p.period_start`)}
         AND t.created_at < ${startOfUtcDay(sql`p.reset_date`)}
         AND t.state = 'active'
         AND t.ai_similarity IS NOT NULL
    ) m ON true
    WHERE i.id = ${who.installationId}
    GROUP BY p.period_start, p.reset_date`);
    const row = rows[0] as StatsRow | undefined;
    if (!row) throw new Error(`installation ${who.installationId} of an authenticated caller not found`);
    const [sentAsIs = 0, edited = 0, rewritten = 0] = percentShares([row.sent_as_is, row.edited, row.rewritten]);
    const aieffectiveness: z.infer<typeof aiEffectivenessSchema> = {
      avgSimilarity: row.avg_similarity === null ? 0 : Number(row.avg_similarity),
      sentAsIs,
      edited,
      rewritten,
      repliesCount: row.replies,
      periodStart: row.period_start,
      resetDate: row.reset_date,
    };
    return c.json({ aieffectiveness, included: {} }, 200);
  },
);
