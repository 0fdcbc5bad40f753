import { sql, type Column, type SQL } from 'drizzle-orm';

export type BillingInterval = 'month' | 'year';

/** One billing period: `[periodStart, resetDate)`, both UTC dates as `YYYY-MM-DD`. */
export interface BillingPeriod {
  periodStart: string;
  /** the next payment date: the day the allowance starts again */
  resetDate: string;
}

const MONTHS_IN: Record<BillingInterval, number> = { month: 1, year: 12 };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function parseDate(text: string): { year: number; month: number; day: number } {
  const match = DATE.exec(text);
  if (!match) throw new Error(`not a date: ${text}`);
  return { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) };
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/**
 * The payment `months` months after the anchor, always counted from the anchor itself: an anchor
 * on the 31st pays on the last day of a shorter month and on the 31st again after it, as card
 * billing does (and as Postgres's `date + interval` does).
 */
function paymentDate(anchor: { year: number; month: number; day: number }, months: number): string {
  const index = anchor.year * 12 + (anchor.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(Math.min(anchor.day, lastDay), 2)}`;
}

/**
 * The billing period `at` falls in: it starts on the latest payment date (the anchor plus k
 * intervals, k >= 0) on or before `at`'s UTC date and ends on the next one. Before the anchor,
 * the first period `[anchor, anchor + 1 interval)`.
 *
 * `billingPeriodSql` is its twin in SQL (one round trip for the routes and the cron); a test
 * holds the two to the same answers.
 */
export function billingPeriod(anchor: string, interval: BillingInterval, at: Date): BillingPeriod {
  const start = parseDate(anchor);
  const day = parseDate(at.toISOString().slice(0, 10));
  const step = MONTHS_IN[interval];
  const monthsSince = (day.year - start.year) * 12 + (day.month - start.month);
  let k = Math.max(0, Math.floor(monthsSince / step));
  if (k > 0 && paymentDate(start, k * step) > at.toISOString().slice(0, 10)) k -= 1;
  return { periodStart: paymentDate(start, k * step), resetDate: paymentDate(start, (k + 1) * step) };
}

/**
 * `billingPeriod` in SQL: a subquery of one row with the date columns `period_start` and
 * `reset_date`, for `CROSS JOIN LATERAL (...) AS p`. `anchor` is a date, `interval` the text
 * 'month' or 'year', `at` a timestamptz.
 */
export function billingPeriodSql(anchor: Column | SQL, interval: Column | SQL, at: SQL): SQL {
  return sql`(
    SELECT (${anchor} + make_interval(months => k.n * s.step))::date AS period_start,
           (${anchor} + make_interval(months => (k.n + 1) * s.step))::date AS reset_date
    FROM (SELECT CASE WHEN ${interval} = 'year' THEN 12 ELSE 1 END AS step,
                 (${at} AT TIME ZONE 'UTC')::date AS day) s
    CROSS JOIN LATERAL (
      SELECT greatest(0, ((extract(year FROM s.day) - extract(year FROM ${anchor})) * 12
                          + extract(month FROM s.day) - extract(month FROM ${anchor}))::int / s.step) AS n0
    ) k0
    CROSS JOIN LATERAL (
      SELECT k0.n0 - CASE WHEN k0.n0 > 0 AND (${anchor} + make_interval(months => k0.n0 * s.step))::date > s.day
                          THEN 1 ELSE 0 END AS n
    ) k
  )`;
}

/** A date column as the start of that UTC day, to compare timestamps with. */
export function startOfUtcDay(date: SQL): SQL {
  return sql`(${date}::timestamp AT TIME ZONE 'UTC')`;
}
