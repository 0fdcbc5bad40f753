import { sql } from 'drizzle-orm';
import type { Env } from '../app-env';
import { openDatabase } from '../db/client';
import { defineModule } from '../modules/module';
import { KEPT_HOURS } from './middleware';

/** Keys the cron deletes in one run; more wait for the next. */
const SWEEP_BATCH = 5_000;

/** Every five minutes: keys past their 24 hours are deleted (a key sent again after that runs anew). */
async function sweepKeys(env: Env): Promise<void> {
  const db = openDatabase(env);
  try {
    await db.http.execute(sql`
      DELETE FROM idempotency_keys WHERE ctid IN (
        SELECT ctid FROM idempotency_keys WHERE created_at <= now() - make_interval(hours => ${KEPT_HOURS}) LIMIT ${SWEEP_BATCH})`);
  } finally {
    await db.close();
  }
}

/**
 * `Idempotency-Key` on every write (`middleware.ts`, mounted on each authenticated route by
 * `pipeline/mount.ts`), and the cron that forgets keys after their 24 hours.
 */
export const idempotencyModule = defineModule({ name: 'idempotency', cron: { keySweep: sweepKeys } });
