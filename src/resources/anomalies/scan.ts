import { sql } from 'drizzle-orm';
import type { Env } from '../../app-env';
import { openDatabase } from '../../db/client';
import { announceEvents } from '../../events/announce';
import { configureEvents, insertEventsFrom, rowsActor } from '../../events/record-events';
import { anomalyFindings } from './scan-rules';

/**
 * An anomaly is not recorded again while one of the same name and subject (customer, inbox, or
 * none) detected in the hours before is still there, open or cleared: clearing says "seen", so
 * the same burst does not come straight back; a burst still going a day later is recorded anew.
 */
export const DEDUPE_HOURS = 24;

/**
 * Cron task: looks for bursts and jumps and records them as anomalies (docs/resources/anomalies.md).
 * Windows end at `at`, the scheduled moment, which is also the anomaly's `detectedAt`.
 *
 * One INSERT ... SELECT ... WHERE NOT EXISTS over every installation. Two runs side by side
 * would each miss the other's uncommitted rows and record a finding twice, so the statement runs
 * under a transaction-scoped advisory lock: concurrent scans wait for one another (a scan is one
 * statement, so the wait is short), and each sees what the one before committed. The lock and
 * the statement are one batch: one exchange, whose last statement reports the events written.
 */
export async function scanForAnomalies(env: Env, at: Date): Promise<void> {
  const moment = sql`${at.toISOString()}::timestamptz`;
  configureEvents(env);
  const db = openDatabase(env);
  try {
    await db.batch([
      sql`SELECT pg_advisory_xact_lock(hashtext('anomaly_scan'))`,
      sql`
        WITH recorded AS (
        INSERT INTO anomalies (installation_id, name, customer_id, inbox_id, details, detected_at)
        SELECT f.installation_id, f.name, f.customer_id, f.inbox_id, f.details, ${moment}
          FROM (${anomalyFindings(at)}) f
         WHERE NOT EXISTS (
                 SELECT 1 FROM anomalies a
                  WHERE a.installation_id = f.installation_id AND a.name = f.name AND a.state = 'active'
                    AND a.customer_id IS NOT DISTINCT FROM f.customer_id
                    AND a.inbox_id IS NOT DISTINCT FROM f.inbox_id
                    AND a.detected_at > ${moment} - make_interval(hours => ${DEDUPE_HOURS}::int))
         ORDER BY f.installation_id, f.name, f.customer_id, f.inbox_id
        RETURNING id, installation_id),
        -- each anomaly recorded is a created event of its installation, written by the cron
        logged AS (${insertEventsFrom(sql`recorded`, rowsActor('cron'), 'anomalies', 'created')})
        SELECT count(*)::int AS recorded FROM recorded`,
    ]);
    await db.afterBatches();
    await announceEvents(env, db);
  } finally {
    await db.close();
  }
}
