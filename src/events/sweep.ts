import { sql } from 'drizzle-orm';
import type { Env } from '../app-env';
import { openDatabase } from '../db/client';
import { log } from '../lib/log';
import { drainMessage } from './drain';

/** Events not handed over after this long have lost their queue message (or are held back): the sweep queues a drain. */
export const SWEEP_AFTER_SECONDS = 60;

/** Dispatched events are kept this long, then deleted (docs/events.md). */
export const EVENT_RETENTION_DAYS = 30;

/** Installations a sweep queues at most, and events it deletes at most, per run. */
const MAX_INSTALLATIONS = 1_000;
const MAX_DELETED = 50_000;

/**
 * Cron task: queues a drain for every installation with events waiting longer than they should
 * (the message sent after the commit was lost, or a subscriber keeps failing), and deletes
 * dispatched events past their retention.
 */
export async function sweepEvents(env: Env, at: Date): Promise<void> {
  const db = openDatabase(env);
  try {
    const moment = sql`least(${at.toISOString()}::timestamptz, now())`;
    const { rows } = await db.http.execute(sql`
      SELECT DISTINCT installation_id FROM events
       WHERE dispatched_at IS NULL AND occurred_at < ${moment} - make_interval(secs => ${SWEEP_AFTER_SECONDS}::int)
       LIMIT ${MAX_INSTALLATIONS}`);
    const installations = rows.map((row) => Number(row.installation_id));
    for (let start = 0; start < installations.length; start += 100) {
      await env.JOBS.sendBatch(installations.slice(start, start + 100).map((id) => ({ body: drainMessage(id) })));
    }
    if (installations.length) log('info', 'events: sweep queued drains', { installations: installations.length });
    await db.http.execute(sql`
      DELETE FROM events WHERE id IN (
        SELECT id FROM events WHERE dispatched_at < ${moment} - make_interval(days => ${EVENT_RETENTION_DAYS}::int) LIMIT ${MAX_DELETED})`);
  } finally {
    await db.close();
  }
}
