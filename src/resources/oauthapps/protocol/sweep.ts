import { sql } from 'drizzle-orm';
import type { Env } from '../../../app-env';
import { openDatabase } from '../../../db/client';

/** Rows the cron deletes of each kind in one run; more wait for the next. */
const SWEEP_BATCH = 5_000;

/**
 * Every five minutes: codes and refresh tokens a day past their expiry (no use of them can succeed
 * any more, nor tell a reuse), and access tokens and sign-in cookies a day past theirs.
 */
export async function sweepOAuth(env: Env): Promise<void> {
  const db = openDatabase(env);
  try {
    await db.http.execute(sql`
      DELETE FROM oauth_codes WHERE code_hash IN (
        SELECT code_hash FROM oauth_codes WHERE expires_at <= now() - interval '1 day' LIMIT ${SWEEP_BATCH})`);
    await db.http.execute(sql`
      DELETE FROM oauth_refresh_tokens WHERE token_hash IN (
        SELECT token_hash FROM oauth_refresh_tokens WHERE expires_at <= now() - interval '1 day' LIMIT ${SWEEP_BATCH})`);
    await db.http.execute(sql`
      DELETE FROM credentials WHERE id IN (
        SELECT id FROM credentials WHERE kind IN ('oauth_access_token', 'signin') AND expires_at <= now() - interval '1 day' LIMIT ${SWEEP_BATCH})`);
  } finally {
    await db.close();
  }
}
