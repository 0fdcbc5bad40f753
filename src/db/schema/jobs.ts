import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, smallint, text, timestamp } from 'drizzle-orm/pg-core';

export const BACKGROUND_JOB_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;

/**
 * Work that runs on the queue. `type` and `action` are integer codes (docs/background-jobs.md):
 * type 1 companies; action 1 import, 2 bulk update, 3 bulk delete, 4 migrate.
 */
export const backgroundJobs = pgTable(
  'background_jobs',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    installationId: integer('installation_id').notNull(),
    type: smallint('type').notNull(),
    action: smallint('action').notNull(),
    status: text('status', { enum: BACKGROUND_JOB_STATUSES }).notNull().default('queued'),
    rowsTotal: integer('rows_total').notNull().default(0),
    rowsDone: integer('rows_done').notNull().default(0),
    rowsFailed: integer('rows_failed').notNull().default(0),
    /** per-row problems: `[{ "line": 7, "reason": "name must be set" }]`, the first 1,000 */
    problems: jsonb('problems').notNull().default([]),
    payload: jsonb('payload'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true, precision: 3 }),
    finishedAt: timestamp('finished_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [
    index('background_jobs_installation_idx').on(t.installationId, t.id),
    // The cron sweep looks only at unfinished jobs, across installations.
    index('background_jobs_unfinished_idx')
      .on(t.status)
      .where(sql`${t.status} IN ('queued', 'running')`),
  ],
);

/** The rows of an uploaded CSV, staged by the request so the queue consumer can work through them in chunks. */
export const importRows = pgTable(
  'import_rows',
  {
    jobId: integer('job_id')
      .notNull()
      .references(() => backgroundJobs.id),
    line: integer('line').notNull(),
    data: jsonb('data').notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.line] })],
);

/** One chunk of an import: done once, whatever the queue redelivers. */
export const importChunks = pgTable(
  'import_chunks',
  {
    jobId: integer('job_id')
      .notNull()
      .references(() => backgroundJobs.id),
    chunk: integer('chunk').notNull(),
    fromLine: integer('from_line').notNull(),
    toLine: integer('to_line').notNull(),
    doneAt: timestamp('done_at', { withTimezone: true, precision: 3 }),
    /** failed tries so far, and why the last one failed: the cron sweep reads them */
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.chunk] })],
);
