import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { EVERYONE } from '../../auth/access';
import { AI_USAGE_STATES } from '../../db/schema';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { isoTime } from '../../engine';
import { includesParam } from '../../engine';
import { billingPeriodSql } from './billing-period';
import { usageStateSql, type AiUsageState } from './usage-state';

const day = z.iso.date();

export const aiUsageSchema = z
  .object({
    state: z
      .enum(AI_USAGE_STATES)
      .describe(
        'ok below 80% of the allowance, warning from 80%, exhausted when used up (always with an allowance of 0)',
      ),
    allowance: z.number().int().describe('units a billing period, both streams together; 0: no AI add-on'),
    used: z.number().int().describe('units used in the period, both streams'),
    remaining: z.number().int().describe('allowance - used, never below 0'),
    percentUsed: z
      .number()
      .describe('used / allowance in percent, one decimal, may exceed 100; 0 when the allowance is 0'),
    streams: z.object({
      replies: z.number().int().describe('agent replies sent from an AI draft'),
      chat: z.number().int().describe('answers the AI assistant wrote in live chats'),
    }),
    periodStart: day.describe('the last payment date: the period started that day (UTC)'),
    resetDate: day.describe('the next payment date: the allowance starts again that day (UTC)'),
    measuredAt: z.iso
      .datetime()
      .nullable()
      .describe('when the metering counted these figures; null when it has not yet run in this period'),
  })
  .meta({ id: 'AIUsage' });

const answer = z.object({ aiusage: aiUsageSchema, included: z.object({}) }).meta({ id: 'AIUsageBody' });

interface UsageRow {
  period_start: string;
  reset_date: string;
  allowance: number;
  replies: number;
  chat: number;
  state: AiUsageState;
  measured_at: string | null;
}

/**
 * `GET /v2/ai/usage.json`: the AI add-on's usage in the current billing period (docs/ai.md).
 *
 * What the metering last measured for the caller's current billing period; before it first runs
 * in the period, the period with nothing used (and `measuredAt` null). One statement.
 */
export const getAiUsageRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/ai/usage.json',
    tag: 'AIUsage',
    operationId: 'getAiUsage',
    roles: EVERYONE,
    summary: 'AI add-on usage in the current billing period',
    description:
      "The AI add-on's units used in the caller's current billing period, both streams (replies sent from an AI draft, answers the AI assistant wrote in live chats) against the allowance, with the state: `ok`, `warning` from 80%, `exhausted` when used up or without the add-on (allowance 0). The figures are what the metering cron last counted, at most about five minutes old; before it has run in the period, nothing used and `measuredAt` null. `includes` takes only `all`. See docs/ai.md.",
    request: { query: z.object({ includes: includesParam([]) }) },
    responses: { 200: jsonResponse('the usage, as last measured', answer) },
  },
  async (c) => {
    const who = c.var.principal;
    const { rows } = await c.var.db.http.execute(sql`
    SELECT to_char(p.period_start, 'YYYY-MM-DD') AS period_start,
           to_char(p.reset_date, 'YYYY-MM-DD') AS reset_date,
           coalesce(u.allowance, i.ai_allowance) AS allowance,
           coalesce(u.replies_used, 0) AS replies,
           coalesce(u.chat_used, 0) AS chat,
           coalesce(u.state, ${usageStateSql(sql`0`, sql`i.ai_allowance`)}) AS state,
           ${isoTime(sql`u.measured_at`)} AS measured_at
    FROM installations i
    CROSS JOIN LATERAL ${billingPeriodSql(sql`i.billing_anchor`, sql`i.billing_interval`, sql`now()`)} p
    LEFT JOIN ai_usage_periods u
      ON u.installation_id = i.id AND u.period_start = p.period_start AND u.reset_date = p.reset_date
    WHERE i.id = ${who.installationId}`);
    const row = rows[0] as UsageRow | undefined;
    if (!row) throw new Error(`installation ${who.installationId} of an authenticated caller not found`);
    const used = row.replies + row.chat;
    const aiusage: z.infer<typeof aiUsageSchema> = {
      state: row.state,
      allowance: row.allowance,
      used,
      remaining: Math.max(0, row.allowance - used),
      percentUsed: row.allowance > 0 ? Math.round((used * 1000) / row.allowance) / 10 : 0,
      streams: { replies: row.replies, chat: row.chat },
      periodStart: row.period_start,
      resetDate: row.reset_date,
      measuredAt: row.measured_at,
    };
    return c.json({ aiusage, included: {} }, 200);
  },
);
