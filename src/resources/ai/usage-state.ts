import { sql, type SQL } from 'drizzle-orm';
import { AI_USAGE_STATES } from '../../db/schema';

export type AiUsageState = (typeof AI_USAGE_STATES)[number];

/** From this share of the allowance used, the state is `warning` (spec part 8). */
export const WARNING_FROM_PERCENT = 80;

/**
 * The usage state (spec parts 3 and 8): `exhausted` once the allowance is used up, so an
 * allowance of 0 (no add-on) is always `exhausted`; `warning` from 80% of it; `ok` below.
 * Compared in whole numbers (100 × used against 80 × allowance), so exactly 80% is `warning`.
 */
export function usageStateSql(used: SQL, allowance: SQL): SQL {
  return sql`CASE
    WHEN ${used} >= ${allowance} THEN 'exhausted'
    WHEN 100 * (${used})::bigint >= ${sql.raw(String(WARNING_FROM_PERCENT))} * (${allowance})::bigint THEN 'warning'
    ELSE 'ok' END`;
}
