import { sql, type SQL } from 'drizzle-orm';
import type { Env } from '../../app-env';
import { openDatabase } from '../../db/client';
import { billingPeriodSql, startOfUtcDay } from './billing-period';
import { usageStateSql } from './usage-state';

/**
 * Every installation's usage in the billing period `at` falls in, as one statement whatever the
 * number of installations: the period from the billing cycle, each stream's units recorded in
 * `[periodStart, resetDate)` up to `at` (an index range scan per installation), the state, and an
 * upsert of the period's row.
 *
 * Safe to run twice or side by side: a run writes the same row a second time, rows are written
 * in installation order so two runs cannot deadlock, and a run never replaces a measurement
 * taken as of a later moment (a late or retried run).
 */
function meteringStatement(at: Date): SQL {
  const moment = sql`${at.toISOString()}::timestamptz`;
  return sql`
    WITH measured AS (
      SELECT i.id AS installation_id, p.period_start, p.reset_date, i.ai_allowance AS allowance,
             u.replies_used, u.chat_used
      FROM installations i
      CROSS JOIN LATERAL ${billingPeriodSql(sql`i.billing_anchor`, sql`i.billing_interval`, moment)} p
      CROSS JOIN LATERAL (
        SELECT coalesce(sum(e.units) FILTER (WHERE e.stream = 'replies'), 0)::int AS replies_used,
               coalesce(sum(e.units) FILTER (WHERE e.stream = 'chat'), 0)::int AS chat_used
        FROM ai_usage_events e
        WHERE e.installation_id = i.id
          AND e.occurred_at >= ${startOfUtcDay(sql`p.period_start`)}
          AND e.occurred_at < ${startOfUtcDay(sql`p.reset_date`)}
          AND e.occurred_at <= ${moment}
      ) u
    )
    INSERT INTO ai_usage_periods
      (installation_id, period_start, reset_date, allowance, replies_used, chat_used, state, measured_at)
    SELECT installation_id, period_start, reset_date, allowance, replies_used, chat_used,
           ${usageStateSql(sql`replies_used + chat_used`, sql`allowance`)}, ${moment}
    FROM measured
    ORDER BY installation_id
    ON CONFLICT (installation_id, period_start) DO UPDATE SET
      reset_date = excluded.reset_date,
      allowance = excluded.allowance,
      replies_used = excluded.replies_used,
      chat_used = excluded.chat_used,
      state = excluded.state,
      measured_at = excluded.measured_at
    WHERE ai_usage_periods.measured_at <= excluded.measured_at`;
}

/** Cron task: measures each installation's AI usage for its current billing period (docs/ai.md). */
export async function meterAiUsage(env: Env, at: Date): Promise<void> {
  const db = openDatabase(env);
  try {
    await db.http.execute(meteringStatement(at));
  } finally {
    await db.close();
  }
}
