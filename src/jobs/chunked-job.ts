import { sql, type SQL } from 'drizzle-orm';
import type { Env } from '../app-env';
import { systemActor, type Principal, type SystemActor, type SystemPart } from '../auth/principal';
import { openDatabase, type Database, type Transaction } from '../db/client';
import { sqlState } from '../db/errors';
import { recalled, remember } from '../db/refusal';
import { announceEvents } from '../events/announce';
import { configureEvents } from '../events/record-events';
import { errorField, log } from '../lib/log';
import type { JobAction, JobType } from './job-codes';
import type { JobMessage } from './job-message';

/**
 * Background work over many rows (an import, an export): the request stages the rows and their
 * chunks in one transaction and queues one message per chunk; the queue consumer does each chunk
 * in one transaction, exactly once whatever the queue redelivers; the cron fails a job that can
 * no longer finish. A job defines only its codes and what one chunk does (`work`).
 */

/** One staged row: its line in the source (the header is line 1) and what the job reads of it. */
export interface StagedLine {
  line: number;
  data: unknown;
}

/** A row the job could not do, and why, as the job's reader sees it. */
export interface JobProblem {
  line: number;
  reason: string;
}

/** The job a chunk belongs to, and who does its work: the system, for the teammate who started it. */
export interface RunningJob {
  id: number;
  installationId: number;
  who: SystemActor;
}

export interface ChunkedJobDefinition {
  /** the queue message kind of one chunk: `{kind, jobId, chunk}` */
  kind: string;
  type: JobType;
  action: JobAction;
  /** the part of the system named by the events the job writes */
  part: SystemPart;
  /** rows done in one transaction */
  chunkRows: number;
  /** how problems name the job and what it does to a row: `import`, `imported` */
  words: { job: string; done: string };
  /** Does one chunk's rows in the chunk's transaction; answers the rows it could not do. */
  work(tx: Transaction, job: RunningJob, lines: StagedLine[]): Promise<JobProblem[]>;
}

/** Rows staged per statement. */
const STAGE_BATCH_ROWS = 5_000;
/**
 * Staged rows (as JSON) sent in one batch, one exchange; more stage over an interactive
 * transaction. Kept well inside what one SQL-over-HTTP exchange carries (docs/connection-strategy.md).
 */
export const STAGE_IN_ONE_EXCHANGE_BYTES = 4 * 1024 * 1024;
/** Whether texts fit `STAGE_IN_ONE_EXCHANGE_BYTES` as UTF-8 (three bytes a code unit at most: measured only when that bound does not settle it). */
function fitsOneExchange(texts: readonly string[]): boolean {
  const units = texts.reduce((sum, text) => sum + text.length, 0);
  if (units * 3 <= STAGE_IN_ONE_EXCHANGE_BYTES) return true;
  if (units > STAGE_IN_ONE_EXCHANGE_BYTES) return false;
  const encoder = new TextEncoder();
  return texts.reduce((sum, text) => sum + encoder.encode(text).byteLength, 0) <= STAGE_IN_ONE_EXCHANGE_BYTES;
}

/** The name a staged job's id goes by in its batch. */
const STAGED_JOB = 'staged_job_id';
/** The queue takes at most 100 messages per `sendBatch`. */
const SEND_BATCH_MESSAGES = 100;
/** Problems a job keeps, the first by line. */
const MAX_PROBLEMS = 1_000;

/**
 * Deliveries of one chunk's message before the queue drops it: wrangler.toml's
 * `[[queues.consumers]] max_retries = 5` plus the first delivery. Change both together. The
 * consumer counts each failed delivery in `import_chunks.attempts`.
 */
export const MAX_CHUNK_DELIVERIES = 6;

/** A job with chunks left that has not moved for this long is given up. */
export const STALL_MINUTES = 30;

interface Chunk {
  chunk: number;
  fromLine: number;
  toLine: number;
}

function chunksOf(lines: StagedLine[], size: number): Chunk[] {
  const chunks: Chunk[] = [];
  for (let start = 0; start < lines.length; start += size) {
    const last = Math.min(start + size, lines.length) - 1;
    chunks.push({ chunk: chunks.length + 1, fromLine: lines[start]!.line, toLine: lines[last]!.line });
  }
  return chunks;
}

/** Thrown inside the transaction to roll the chunk back when the job was cancelled while it ran. */
class JobNoLongerRunning extends Error {}

interface ChunkState {
  fromLine: number;
  toLine: number;
  done: boolean;
  status: string;
  installationId: number;
  createdBy: number | null;
}

/**
 * Why a chunk failed, as a job's reader may see it: a kind of failure, never the error's text
 * (which can hold SQL, values or addresses). The whole error goes to the log.
 */
function failureReason(error: unknown, job: string): string {
  const state = sqlState(error).code;
  if (state === undefined) return `the ${job} worker failed unexpectedly`;
  switch (state.slice(0, 2)) {
    case '08':
    case '53':
    case '57':
    case '58':
      return 'the database was unavailable or overloaded';
    case '40':
      return 'the rows conflicted with other changes made at the same time';
    case '22':
    case '23':
      return 'the database refused a value or a row of these lines';
    default:
      return 'the database refused to write these lines';
  }
}

export function defineChunkedJob(definition: ChunkedJobDefinition) {
  const { kind, type, action, chunkRows, words } = definition;
  const ofThisJob = sql`j.type = ${type} AND j.action = ${action}`;

  /**
   * Stages the rows and their chunks in one transaction, then queues one message per chunk.
   * Answers the job's id. Rows that fit one HTTP exchange (`STAGE_IN_ONE_EXCHANGE_BYTES`) are sent
   * as one batch; a larger file stages over a connection of its own, 5,000 rows a statement.
   */
  async function start(
    db: Database,
    env: Env,
    who: Principal,
    lines: StagedLine[],
    payload: Record<string, unknown>,
  ): Promise<number> {
    const chunks = chunksOf(lines, chunkRows);
    const slices: string[] = [];
    for (let start = 0; start < lines.length; start += STAGE_BATCH_ROWS)
      slices.push(JSON.stringify(lines.slice(start, start + STAGE_BATCH_ROWS)));
    const job = sql`INSERT INTO background_jobs (installation_id, type, action, status, rows_total, created_by, payload)
        VALUES (${who.installationId}, ${type}, ${action}, 'queued', ${lines.length}, ${who.userId}, ${JSON.stringify({ ...payload, chunks: chunks.length })}::jsonb)
        RETURNING id, ${remember(STAGED_JOB, sql`id`)} AS remembered`;
    const stage = (id: SQL, slice: string) => sql`
        INSERT INTO import_rows (job_id, line, data)
        SELECT ${id}, r.line, r.data FROM jsonb_to_recordset(${slice}::jsonb) AS r(line integer, data jsonb)`;
    const chunkRowsStatement = (id: SQL) => sql`
        INSERT INTO import_chunks (job_id, chunk, from_line, to_line)
        SELECT ${id}, r.chunk, r."fromLine", r."toLine"
          FROM jsonb_to_recordset(${JSON.stringify(chunks)}::jsonb) AS r(chunk integer, "fromLine" integer, "toLine" integer)`;
    const jobId = fitsOneExchange(slices)
      ? Number(
          (
            await db.batch([
              job,
              ...slices.map((slice) => stage(recalled(STAGED_JOB), slice)),
              chunkRowsStatement(recalled(STAGED_JOB)),
            ])
          )[0]![0]!.id,
        )
      : await db.transaction(async (tx) => {
          const id = Number((await tx.execute(job)).rows[0]!.id);
          for (const slice of slices) await tx.execute(stage(sql`${id}`, slice));
          await tx.execute(chunkRowsStatement(sql`${id}`));
          return id;
        });
    // Sent once the rows are committed, so a consumer never looks for a chunk that is not there yet.
    try {
      for (let start = 0; start < chunks.length; start += SEND_BATCH_MESSAGES) {
        await env.JOBS.sendBatch(
          chunks
            .slice(start, start + SEND_BATCH_MESSAGES)
            .map(({ chunk }) => ({ body: { kind, jobId, chunk } satisfies JobMessage })),
        );
      }
    } catch (error) {
      await db.http.execute(sql`
        UPDATE background_jobs SET status = 'failed', finished_at = now(), updated_at = now(),
               problems = ${JSON.stringify([{ reason: `the ${words.job} could not be queued; send the file again` }])}::jsonb
         WHERE id = ${jobId} AND status IN ('queued', 'running')`);
      throw error;
    }
    return jobId;
  }

  async function lockChunk(tx: Transaction, jobId: number, chunk: number): Promise<ChunkState | undefined> {
    const { rows } = await tx.execute(sql`
      SELECT c.from_line AS "fromLine", c.to_line AS "toLine", c.done_at IS NOT NULL AS done,
             j.status, j.installation_id AS "installationId", j.created_by AS "createdBy"
        FROM import_chunks c JOIN background_jobs j ON j.id = c.job_id
       WHERE c.job_id = ${jobId} AND c.chunk = ${chunk} AND ${ofThisJob}
         FOR UPDATE OF c`);
    return rows[0] as ChunkState | undefined;
  }

  /**
   * Counts the chunk into the job, keeps the first problems by line, and completes the job with
   * its last rows. Only a queued or running job moves on: when the job was cancelled while the
   * chunk ran, the whole chunk rolls back, so the counters always match what was written.
   */
  async function countIntoJob(tx: Transaction, jobId: number, handled: number, problems: JobProblem[]): Promise<void> {
    const finished = sql`rows_done + ${handled} >= rows_total`;
    const { rows } = await tx.execute(sql`
      UPDATE background_jobs
         SET rows_done = rows_done + ${handled},
             rows_failed = rows_failed + ${problems.length},
             problems = ${
               problems.length === 0
                 ? sql`problems`
                 : sql`(
               SELECT coalesce(jsonb_agg(p ORDER BY (p->>'line')::int), '[]'::jsonb)
                 FROM (SELECT p FROM jsonb_array_elements(problems || ${JSON.stringify(problems)}::jsonb) AS p
                        ORDER BY (p->>'line')::int LIMIT ${MAX_PROBLEMS}) AS first)`
             },
             status = CASE WHEN ${finished} THEN 'completed' ELSE 'running' END,
             started_at = coalesce(started_at, now()),
             finished_at = CASE WHEN ${finished} THEN now() ELSE finished_at END,
             updated_at = now()
       WHERE id = ${jobId} AND status IN ('queued', 'running')
      RETURNING id`);
    if (rows.length === 0) throw new JobNoLongerRunning();
  }

  /**
   * Counts a failed try on the chunk row, with its reason, for the sweep. A statement of its
   * own: the chunk's transaction has rolled back. If even this fails (the database is gone), the
   * queue's retry still happens; only the count is short.
   */
  async function recordFailedAttempt(db: Database, jobId: number, chunk: number, error: unknown): Promise<void> {
    try {
      await db.http.execute(sql`
        UPDATE import_chunks SET attempts = attempts + 1, last_error = ${failureReason(error, definition.words.job)}
         WHERE job_id = ${jobId} AND chunk = ${chunk} AND done_at IS NULL`);
    } catch (recording) {
      log('error', 'jobs: could not record a failed attempt', { kind, jobId, chunk, error: errorField(recording) });
    }
  }

  /**
   * Does one chunk, all of it in one transaction: a consumer that dies half-way leaves nothing,
   * and the queue's redelivery does the chunk whole. The chunk row stays locked while it runs
   * and is marked done in the same transaction, so a message delivered twice finds it done and
   * does nothing. A failure is counted on the chunk row and thrown again, so the queue retries.
   */
  async function consumer(message: JobMessage, env: Env): Promise<void> {
    const jobId = Number(message.jobId);
    const chunk = Number(message.chunk);
    if (!Number.isInteger(jobId) || !Number.isInteger(chunk)) {
      log('warn', 'jobs: chunk message without an integer jobId and chunk; dropped', { kind });
      return;
    }
    configureEvents(env);
    const db = openDatabase(env);
    let staged: SQL | undefined;
    try {
      await db.transaction(async (tx) => {
        const state = await lockChunk(tx, jobId, chunk);
        if (!state || state.done) return;
        staged = sql`import_rows WHERE job_id = ${jobId} AND line BETWEEN ${state.fromLine} AND ${state.toLine}`;
        if (state.status !== 'queued' && state.status !== 'running') {
          // Cancelled (or failed): the chunk is not run; its staged rows are no longer needed.
          await tx.execute(sql`DELETE FROM ${staged}`);
          return;
        }
        const { rows } = await tx.execute(sql`SELECT line, data FROM ${staged} ORDER BY line`);
        const job: RunningJob = {
          id: jobId,
          installationId: state.installationId,
          who: systemActor(state.installationId, definition.part, state.createdBy),
        };
        const problems = await definition.work(tx, job, rows as unknown as StagedLine[]);
        await tx.execute(sql`UPDATE import_chunks SET done_at = now() WHERE job_id = ${jobId} AND chunk = ${chunk}`);
        await tx.execute(sql`DELETE FROM ${staged}`);
        await countIntoJob(tx, jobId, rows.length, problems);
      });
      await announceEvents(env, db);
    } catch (error) {
      if (error instanceof JobNoLongerRunning) {
        // cancelled while the chunk ran: what it did rolled back, its staged rows (the delete
        // rolled back with it) are no longer needed, and no message will come for them again
        if (staged) await db.http.execute(sql`DELETE FROM ${staged}`);
        return;
      }
      await recordFailedAttempt(db, jobId, chunk, error);
      throw error;
    } finally {
      await db.close();
    }
  }

  /**
   * Staleness is measured on the database's clock, which wrote `updated_at`, and never past the
   * scheduled moment: a run fired for an instant ahead of the clock fails nothing early.
   */
  const stalledBefore = (at: Date): SQL =>
    sql`least(${at.toISOString()}::timestamptz, now()) - make_interval(mins => ${STALL_MINUTES}::int)`;

  /** A live job of this kind that can no longer finish: a chunk the queue gave up on, or no progress for too long. */
  const cannotFinish = (at: Date): SQL => sql`${ofThisJob} AND j.status IN ('queued', 'running')
    AND (EXISTS (SELECT 1 FROM import_chunks c WHERE c.job_id = j.id AND c.done_at IS NULL AND c.attempts >= ${MAX_CHUNK_DELIVERIES}::int)
         OR (j.updated_at < ${stalledBefore(at)}
             AND EXISTS (SELECT 1 FROM import_chunks c WHERE c.job_id = j.id AND c.done_at IS NULL)))`;

  /**
   * Fails the locked jobs that still cannot finish (checked again: this statement's snapshot sees
   * what committed while the locks were taken). Every chunk not done adds a problem, merged into
   * the job's problems the way the consumer keeps them: the first by line.
   */
  function sweepStatement(at: Date, ids: number[]): SQL {
    const lines = sql`c.from_line || '–' || c.to_line`;
    const reason = sql`CASE
      WHEN c.attempts >= ${MAX_CHUNK_DELIVERIES}::int
        THEN 'lines ' || ${lines} || ${` could not be ${words.done} after `}::text || c.attempts || ' attempts: ' || coalesce(c.last_error, 'no reason was recorded')
      WHEN j.updated_at < ${stalledBefore(at)}
        THEN 'lines ' || ${lines} || ${` were not ${words.done}: the ${words.job} made no progress for `}::text || ${STALL_MINUTES}::int || ' minutes'
      ELSE 'lines ' || ${lines} || ${` were not ${words.done}: the ${words.job} stopped when other lines failed`}::text END`;
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
                        ORDER BY (p->>'line')::int LIMIT ${MAX_PROBLEMS}) AS first)
       WHERE j.id IN (${sql.join(
         ids.map((id) => sql`${id}::int`),
         sql`, `,
       )}) AND ${cannotFinish(at)}`;
  }

  /**
   * Cron task: fails a job that can no longer finish, instead of leaving it running forever. The
   * job becomes `failed` (`finishedAt` set); every chunk not done adds a problem naming its lines
   * and why, and its rows count as done and failed, so `rowsDone` reaches `rowsTotal`. Chunks
   * still on the queue then find the job failed and run nothing.
   *
   * Runs in a transaction that first locks the jobs to fail: a chunk committing at that moment
   * either finished before (and is counted, seen by the UPDATE's fresh snapshot) or finds the job
   * failed and rolls back. The UPDATE moves only a queued or running job, so a cancelled or
   * completed job is never touched, and a second or concurrent sweep changes nothing.
   */
  async function sweep(env: Env, at: Date): Promise<void> {
    const db = openDatabase(env);
    try {
      // A cheap look first, over HTTP: most runs have nothing to sweep and open no connection.
      const { rows: candidates } = await db.http.execute(
        sql`SELECT j.id FROM background_jobs j WHERE ${cannotFinish(at)} LIMIT 1`,
      );
      if (candidates.length === 0) return;
      await db.transaction(async (tx) => {
        const { rows: locked } = await tx.execute(
          sql`SELECT j.id FROM background_jobs j WHERE ${cannotFinish(at)} ORDER BY j.id FOR UPDATE OF j`,
        );
        if (locked.length === 0) return;
        await tx.execute(
          sweepStatement(
            at,
            locked.map((row) => Number(row.id)),
          ),
        );
      });
    } finally {
      await db.close();
    }
  }

  return { ...definition, start, consumer, sweep };
}
