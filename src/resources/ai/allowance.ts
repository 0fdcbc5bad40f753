import { sql, type SQL } from 'drizzle-orm';
import { ApiError } from '../../http/errors';
import { billingPeriodSql, startOfUtcDay } from './billing-period';
import { usageStateSql, type AiUsageState } from './usage-state';

/** An installation's AI usage at this moment: what the allowance check decides on. */
export interface UsageNow {
  allowance: number;
  used: number;
  state: AiUsageState;
  /** the next payment date, `YYYY-MM-DD` */
  resetDate: string;
}

/**
 * The installation's usage now, as a scalar subquery answering one JSON object (`UsageNow`):
 * the units recorded in its current billing period counted as the request runs (an index range
 * scan), not the cron's last measure, so `warning` and `exhausted` hold from the unit that reaches
 * them. To put in a statement the request sends anyway: no round trip of its own.
 */
export function usageNowSql(installationId: number): SQL {
  return sql`(SELECT json_build_object('allowance', i.ai_allowance, 'used', u.used,
      'state', ${usageStateSql(sql`u.used`, sql`i.ai_allowance`)}, 'resetDate', to_char(p.reset_date, 'YYYY-MM-DD'))
    FROM installations i
    CROSS JOIN LATERAL ${billingPeriodSql(sql`i.billing_anchor`, sql`i.billing_interval`, sql`now()`)} p
    CROSS JOIN LATERAL (
      SELECT coalesce(sum(e.units), 0)::int AS used FROM ai_usage_events e
      WHERE e.installation_id = i.id
        AND e.occurred_at >= ${startOfUtcDay(sql`p.period_start`)}
        AND e.occurred_at < ${startOfUtcDay(sql`p.reset_date`)}
    ) u
    WHERE i.id = ${installationId})`;
}

/**
 * The 402 of an installation that may not use the AI now: without the add-on (allowance 0), or
 * with the allowance used up until `resetDate`. Undefined while it may (`ok`, `warning`).
 */
export function allowanceRefusal(usage: UsageNow): ApiError | undefined {
  if (usage.state !== 'exhausted') return undefined;
  const detail =
    usage.allowance === 0
      ? 'this installation has no AI add-on (allowance 0): nothing is drafted or billed'
      : `the AI allowance of ${usage.allowance} units is used up (${usage.used} used) until ${usage.resetDate}, when it starts again`;
  return new ApiError(402, [{ code: 'paymentRequired', source: 'aiusage.allowance', detail }], {
    'X-AI-Usage-State': usage.state,
    'X-AI-Reset-Date': usage.resetDate,
  });
}

/** The headers a response of AI work carries: where the allowance stands, so a client stops offering it on time. */
export function usageHeaders(usage: UsageNow): Record<string, string> {
  return {
    'X-AI-Usage-State': usage.state,
    'X-AI-Remaining': String(Math.max(0, usage.allowance - usage.used)),
    'X-AI-Reset-Date': usage.resetDate,
  };
}
