import { sql } from 'drizzle-orm';
import type { Env } from '../../app-env';
import { openDatabase } from '../../db/client';
import { UNCONFIRMED_TTL_HOURS } from './upload-policy';

/** At most this many uploads a run: the cron comes back in five minutes for the rest. */
const SWEEP_BATCH = 500;

/**
 * Cron task: uploads never confirmed a day after they were asked for are removed, their bytes
 * from the bucket and their rows marked deleted (`files_unconfirmed_idx` finds them). Running it
 * twice removes nothing twice: a deleted row is not picked again, and deleting a missing object
 * is no error.
 */
export async function sweepUnconfirmedFiles(env: Env, at: Date): Promise<void> {
  const db = openDatabase(env);
  try {
    const { rows } = await db.http.execute(sql`
      SELECT id, storage_key FROM files
       WHERE confirmed_at IS NULL AND storage_key IS NOT NULL AND state = 'active'
         AND created_at < ${at.toISOString()}::timestamptz - make_interval(hours => ${UNCONFIRMED_TTL_HOURS})
       ORDER BY created_at LIMIT ${SWEEP_BATCH}`);
    if (rows.length === 0) return;
    await env.FILES.delete(rows.map((row) => String(row.storage_key)));
    await db.http.execute(sql`
      UPDATE files SET state = 'deleted', deleted_at = now(), updated_at = now()
       WHERE id IN (SELECT jsonb_array_elements_text(${JSON.stringify(rows.map((row) => Number(row.id)))}::jsonb)::int) AND confirmed_at IS NULL`);
  } finally {
    await db.close();
  }
}
