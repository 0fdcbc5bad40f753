import { sql, type SQL } from 'drizzle-orm';
import type { Env } from '../../app-env';
import { openDatabase } from '../../db/client';

/**
 * Deliveries of one chunk's message before the queue drops it: wrangler.toml's
 * `[[queues.consumers]] max_retries = 5` plus the first delivery. Change both together. The
 * consumer counts each failed delivery in `import_chunks.attempts`.
 */
export const MAX_CHUNK_DELIVERIES = 6;

/** An import with chunks left that has not moved for this long is given up. */
export const IMPORT_STALL_MINUTES = 30;

const JOB_TYPE_COMPANIES = 1;
const JOB_ACTION_IMPORT = 1;

/**
 * Staleness is measured on the database's clock, which wrote `updated_at`, and never past the
 * scheduled moment: a run fired for an instant ahead of the clock fails nothing early.
 */
function stalledBefore(at: Date): SQL {
  return sql`least(${at.toISOString()}::timestamptz, now()) - make_interval(mins => ${IMPORT_STALL_MINUTES}::int)`;
}

/** A live import that can no longer finish: a chunk the queue gave up on, or no progress for too long. */
function cannotFinish(at: Date): SQL {
  return sql`j.type = ${JOB_TYPE_COMPANIES} AND j.action = ${JOB_ACTION_IMPORT} AND j.status IN ('queued', 'running')
    AND (EXISTS (SELECT 1 FROM import_chunks c WHERE c.job_id = j.id AND c.done_at IS NULL AND c.attempts >= ${MAX_CHUNK_DELIVERIES}::int)
         OR (j.updated_at < ${stalledBefore(at)}
             AND EXISTS (SELECT 1 FROM import_chunks c WHERE c.job_id = j.id AND c.done_at IS NULL)))`;
}

/**
 * Cron task: fails an import that can no longer finish, instead of leaving it running forever.
 * The job becomes `failed` (`finishedAt` set); every chunk not done adds a problem naming its
 * lines and why, and its rows count as done and failed, so `rowsDone` reaches `rowsTotal`.
 * Chunks still on the queue then find the job failed and run nothing (import-consumer.ts).
 *
 * Runs in a transaction that first locks the jobs to fail: a chunk committing at that moment
 * either finished before (and is counted as imported, seen by the UPDATE's fresh snapshot) or
 * finds the job failed and rolls back. The UPDATE moves only a queued or running job, so a
 * cancelled or completed job is never touched, and a second or concurrent sweep changes nothing.
 */
export async function sweepStalledImports(env: Env, at: Date): Promise<void> {
  const db = openDatabase(env);
  try {
    // A cheap look first, over HTTP: most runs have nothing to sweep and open no connection.
    const { rows: candidates } = await db.http.execute(sql`SELECT j.id FROM background_jobs j WHERE ${cannotFinish(at)} LIMIT 1`);
    if (candidates.length === 0) return;
    await db.transaction(async (tx) => {
      const { rows: locked } = await tx.execute(sql`
        SELECT j.id FROM background_jobs j WHERE ${cannotFinish(at)} ORDER BY j.id FOR UPDATE OF j`);
      if (locked.length === 0) return;
      const ids = locked.map((row) => Number(row.id));
      await tx.execute(sweepStatement(at, ids));
    });
  } finally {
    await db.close();
  }
}

/**
 * Fails the locked jobs that still cannot finish (checked again: this statement's snapshot
 * sees what committed while the locks were taken). Every chunk not done adds a problem, merged
 * into the job's problems the way the consumer keeps them: the first 1,000 by line.
 */
function sweepStatement(at: Date, ids: number[]): SQL {
  const lines = sql`c.from_line || '–' || c.to_line`;
  const reason = sql`CASE
    WHEN c.attempts >= ${MAX_CHUNK_DELIVERIES}::int
      THEN 'lines ' || ${lines} || ' could not be imported after ' || c.attempts || ' attempts: '
           || coalesce(c.last_error, 'no reason was recorded')
    WHEN j.updated_at < ${stalledBefore(at)}
      THEN 'lines ' || ${lines} || ' were not imported: the import made no progress for ' || ${IMPORT_STALL_MINUTES}::int || ' minutes'
    ELSE 'lines ' || ${lines} || ' were not imported: the import stopped when other lines failed' END`;
  return sql`
    UPDATE background_jobs j
       SET status = 'failed',
           finished_at = now(),
           updated_at = now(),
           rows_failed = j.rows_failed + greatest(j.rows_total - j.rows_done, 0),
           rows_done = greatest(j.rows_total, j.rows_done),
           problems = (
             SELECT coalesce(jsonb_agg(p ORDER BY (p->>'line')::int), '[]'::jsonb)
               FROM (SELECT p FROM jsonb_array_elements(j.problems || coalesce((
                       SELECT jsonb_agg(jsonb_build_object('line', c.from_line, 'reason', ${reason}) ORDER BY c.chunk)
                         FROM import_chunks c WHERE c.job_id = j.id AND c.done_at IS NULL), '[]'::jsonb)) AS p
                      ORDER BY (p->>'line')::int LIMIT 1000) AS first)
     WHERE j.id IN (${sql.join(ids.map((id) => sql`${id}::int`), sql`, `)}) AND ${cannotFinish(at)}`;
}
