import { sql } from 'drizzle-orm';
import type { Env } from '../../app-env';
import { openDatabase } from '../../db/client';

/** Raw messages the cron deletes in one run; more wait for the next. */
const SWEEP_BATCH = 500;

/** Every five minutes: raw messages past their keeping (`RAW_KEPT_DAYS`) leave the bucket, and their rows say so. */
export async function sweepRawMail(env: Env, at: Date): Promise<void> {
  const db = openDatabase(env);
  try {
    const { rows } = await db.http.execute(sql`
      SELECT id, raw_key FROM inbound_mails WHERE raw_key IS NOT NULL AND raw_expires_at <= ${at.toISOString()}::timestamptz
       ORDER BY raw_expires_at LIMIT ${SWEEP_BATCH}`);
    if (rows.length === 0) return;
    await env.FILES.delete(rows.map((row) => String(row.raw_key)));
    await db.http.execute(sql`UPDATE inbound_mails SET raw_key = NULL, raw_expires_at = NULL
      WHERE id IN (SELECT jsonb_array_elements_text(${JSON.stringify(rows.map((row) => Number(row.id)))}::jsonb)::int)`);
  } finally {
    await db.close();
  }
}
