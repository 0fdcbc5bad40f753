import { sql, type SQL } from 'drizzle-orm';

/** `conversation_burst`: at least this many conversations in the window from one customer's contacts. */
export const CUSTOMER_BURST_MIN_CONVERSATIONS = 5;
/** `inbox_burst`: at least this many conversations in the window in one inbox... */
export const INBOX_BURST_MIN_CONVERSATIONS = 20;
/** ...and at least this many times the inbox's average hourly count over the baseline. */
export const INBOX_BURST_FACTOR = 3;
/** The window of both bursts: the hour before the scan's moment. */
export const BURST_WINDOW_MINUTES = 60;

/** `ai_usage_spike`: at least this many AI units in the window... */
export const AI_SPIKE_MIN_UNITS = 50;
/** ...and at least this many times the daily average over the baseline. */
export const AI_SPIKE_FACTOR = 3;
/** The window of the AI spike: the 24 hours before the scan's moment. */
export const AI_SPIKE_WINDOW_HOURS = 24;

/** The baseline of both comparisons: the days before the window. */
export const BASELINE_DAYS = 7;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const instant = (date: Date) => sql`${date.toISOString()}::timestamptz`;
const iso = (date: Date) => sql`${date.toISOString()}::text`;

/**
 * Each rule is a SELECT of `(installation_id, name, customer_id, inbox_id, details)` over every
 * installation at once. The counting runs per installation through a LATERAL subquery, so each
 * is an index range scan on `(installation_id, created_at)` / `(installation_id, occurred_at)`;
 * a baseline is only counted for a subject that already passed the window's minimum.
 * Windows are half-open: `[since, at)`. Deleted conversations do not count.
 */
export function conversationBurstRule(at: Date): SQL {
  const since = new Date(at.getTime() - BURST_WINDOW_MINUTES * MINUTE);
  return sql`
    SELECT i.id AS installation_id, 'conversation_burst'::text AS name, b.customer_id, NULL::integer AS inbox_id,
           jsonb_build_object('count', b.count, 'windowMinutes', ${BURST_WINDOW_MINUTES}::int, 'since', ${iso(since)}) AS details
      FROM installations i
      CROSS JOIN LATERAL (
        SELECT ct.customer_id, count(*)::int AS count
          FROM conversations c
          JOIN contacts ct ON ct.id = c.contact_id AND ct.installation_id = c.installation_id
         WHERE c.installation_id = i.id AND c.state = 'active'
           AND c.created_at >= ${instant(since)} AND c.created_at < ${instant(at)}
           AND ct.customer_id IS NOT NULL
         GROUP BY ct.customer_id
        HAVING count(*) >= ${CUSTOMER_BURST_MIN_CONVERSATIONS}::int
      ) b`;
}

export function inboxBurstRule(at: Date): SQL {
  const since = new Date(at.getTime() - BURST_WINDOW_MINUTES * MINUTE);
  const baselineStart = new Date(since.getTime() - BASELINE_DAYS * DAY);
  const baselineHours = (BASELINE_DAYS * DAY) / HOUR;
  return sql`
    SELECT i.id AS installation_id, 'inbox_burst'::text AS name, NULL::integer AS customer_id, r.inbox_id,
           jsonb_build_object('count', r.count, 'windowMinutes', ${BURST_WINDOW_MINUTES}::int, 'since', ${iso(since)},
                              'hourlyAverage', round(b.count::numeric / ${baselineHours}::int, 2), 'baselineDays', ${BASELINE_DAYS}::int) AS details
      FROM installations i
      CROSS JOIN LATERAL (
        SELECT c.inbox_id, count(*)::int AS count
          FROM conversations c
         WHERE c.installation_id = i.id AND c.state = 'active' AND c.inbox_id IS NOT NULL
           AND c.created_at >= ${instant(since)} AND c.created_at < ${instant(at)}
         GROUP BY c.inbox_id
        HAVING count(*) >= ${INBOX_BURST_MIN_CONVERSATIONS}::int
      ) r
      CROSS JOIN LATERAL (
        SELECT count(*)::int AS count
          FROM conversations c
         WHERE c.installation_id = i.id AND c.state = 'active' AND c.inbox_id = r.inbox_id
           AND c.created_at >= ${instant(baselineStart)} AND c.created_at < ${instant(since)}
      ) b
     -- count >= factor * (baseline / hours), kept in integers
     WHERE r.count::bigint * ${baselineHours}::int >= ${INBOX_BURST_FACTOR}::int * b.count::bigint`;
}

export function aiUsageSpikeRule(at: Date): SQL {
  const since = new Date(at.getTime() - AI_SPIKE_WINDOW_HOURS * HOUR);
  const baselineStart = new Date(since.getTime() - BASELINE_DAYS * DAY);
  return sql`
    SELECT i.id AS installation_id, 'ai_usage_spike'::text AS name, NULL::integer AS customer_id, NULL::integer AS inbox_id,
           jsonb_build_object('units', r.units, 'windowHours', ${AI_SPIKE_WINDOW_HOURS}::int, 'since', ${iso(since)},
                              'dailyAverage', round(b.units::numeric / ${BASELINE_DAYS}::int, 2), 'baselineDays', ${BASELINE_DAYS}::int) AS details
      FROM installations i
      CROSS JOIN LATERAL (
        SELECT sum(e.units) AS units
          FROM ai_usage_events e
         WHERE e.installation_id = i.id AND e.occurred_at >= ${instant(since)} AND e.occurred_at < ${instant(at)}
        HAVING sum(e.units) >= ${AI_SPIKE_MIN_UNITS}::int
      ) r
      CROSS JOIN LATERAL (
        SELECT coalesce(sum(e.units), 0) AS units
          FROM ai_usage_events e
         WHERE e.installation_id = i.id AND e.occurred_at >= ${instant(baselineStart)} AND e.occurred_at < ${instant(since)}
      ) b
     -- units >= factor * (baseline / days), kept in integers
     WHERE r.units * ${BASELINE_DAYS}::int >= ${AI_SPIKE_FACTOR}::int * b.units`;
}

/** Every rule's findings, as one row set. */
export function anomalyFindings(at: Date): SQL {
  return sql`(${conversationBurstRule(at)}) UNION ALL (${inboxBurstRule(at)}) UNION ALL (${aiUsageSpikeRule(at)})`;
}
