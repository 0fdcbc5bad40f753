import { sql, type SQL } from 'drizzle-orm';
import type { Env } from '../app-env';
import { openDatabase, type Database } from '../db/client';
import { intList } from '../db/sql-values';
import { announceEvents } from '../events/announce';
import { configureEvents } from '../events/record-events';
import { isRowId } from '../http/params';
import { log } from '../lib/log';
import type { JobMessage } from './job-message';

/**
 * Rows written to be sent later (outgoing mail, webhook deliveries), each tried by a queue
 * consumer with the same protocol: a queue message names some rows; those not committed yet are
 * looked for again during a grace period; a due row is leased with an UPDATE (a second message for
 * it finds it held and leaves it); the held ones are tried side by side; the outcomes recorded in
 * one statement with their backoff; what must wait goes back on the queue, those of one wait in
 * one message; and the cron queues again the rows whose message was lost or whose try died
 * holding its lease. An outbox declares its table and the parts that differ: how a row is read,
 * tried and recorded.
 */

/** A row of an outbox: its id, and in how many milliseconds it is due (a second or less is now). */
export interface OutboxRow {
  id: number;
  dueIn: number;
}

/** A row to try again in `wait` seconds. */
export interface Later {
  id: number;
  wait: number;
}

/** What an outbox settles before the lease (`prepare`). */
export interface Prepared<Row> {
  /** rows to try when due, or to put back on the queue until they are */
  candidates: Row[];
  /** candidates held already (leased by `prepare` itself) */
  held: ReadonlySet<number>;
}

export interface Outbox<Row extends OutboxRow, Outcome, Context = undefined> {
  /** the table: rows with `id`, `status` and `next_attempt_at` */
  table: string;
  /** the `status` of a row still to send */
  pending: string;
  /** how long a try holds its row: another message for it leaves it, and the sweep takes it back after */
  leaseSeconds: number;
  /** rows one queue message names at most */
  maxAMessage: number;
  /** the ids a queue message names, as sent */
  idsIn(message: JobMessage): unknown;
  /** a row not found may be in a transaction not committed yet: looked for again this long after the message's `queuedAt` */
  uncommittedGraceMs?: number;
  /** the pending rows of `ids`, and what the message's tries share (read alongside, in the same exchange where it can) */
  read(db: Database, ids: readonly number[], message: JobMessage, env: Env): Promise<{ rows: Row[]; context: Context }>;
  /** settles the rows before the lease (those that cannot be tried, those decided only now) */
  prepare?(db: Database, rows: Row[], isDue: (row: Row) => boolean, context: Context): Promise<Prepared<Row>>;
  /** one try of a held row */
  attempt(row: Row, env: Env, context: Context): Promise<Outcome>;
  /**
   * records the tries, and what `prepare` left in the context to write, in one statement (none
   * when there is nothing to write); answers the rows to queue, again or for the first time, and
   * their waits (0: now)
   */
  record(
    db: Database,
    env: Env,
    tries: ReadonlyArray<{ row: Row; outcome: Outcome }>,
    context: Context,
  ): Promise<Later[]>;
  /**
   * puts rows on the queue, due in `delaySeconds` (now when absent); `queuedAt` is the message's
   * own when rows not found are looked for again, so that their grace runs out
   */
  queue(env: Env, ids: readonly number[], delaySeconds?: number, queuedAt?: number): Promise<void>;
  /** what a lost row must also be to be queued again by the sweep (SQL over the table as `d`) */
  sweepOnly?: SQL;
}

const isDue = (row: OutboxRow) => row.dueIn <= 1000;

/** Queues the rows after their waits (0: now), those of one wait together. */
async function requeue(outbox: Pick<Outbox<OutboxRow, unknown, unknown>, 'queue'>, env: Env, later: Later[]) {
  const byWait = new Map<number, number[]>();
  for (const { id, wait } of later) byWait.set(wait, [...(byWait.get(wait) ?? []), id]);
  for (const [wait, ids] of byWait) await outbox.queue(env, ids, wait);
}

/** The queue consumer of an outbox: safe to run twice for a message, and for two messages naming one row at once. */
export function outboxConsumer<Row extends OutboxRow, Outcome, Context>(outbox: Outbox<Row, Outcome, Context>) {
  return async (message: JobMessage, env: Env): Promise<void> => {
    const sent = outbox.idsIn(message);
    const ids = [...new Set((Array.isArray(sent) ? sent : [sent]).map(Number).filter(isRowId))].slice(
      0,
      outbox.maxAMessage,
    );
    if (ids.length === 0) return;
    configureEvents(env);
    const db = openDatabase(env);
    try {
      const { rows, context } = await outbox.read(db, ids, message, env);
      const later: Later[] = [];
      let absent: number[] = [];
      const fresh =
        outbox.uncommittedGraceMs !== undefined &&
        Date.now() - Number(message.queuedAt ?? 0) < outbox.uncommittedGraceMs;
      if (fresh && rows.length < ids.length) {
        const { rows: present } = await db.http.execute(
          sql`SELECT id FROM ${sql.identifier(outbox.table)} WHERE id IN ${intList(ids)}`,
        );
        const there = new Set(present.map((row) => Number(row.id)));
        absent = ids.filter((id) => !there.has(id));
      }
      const { candidates, held } = outbox.prepare
        ? await outbox.prepare(db, rows, isDue, context)
        : { candidates: rows, held: new Set<number>() };
      for (const row of candidates) if (!isDue(row)) later.push({ id: row.id, wait: Math.ceil(row.dueIn / 1000) });
      const due = candidates.filter(isDue);
      const toLease = due.filter((row) => !held.has(row.id));
      const { rows: leased } =
        toLease.length === 0
          ? { rows: [] }
          : await db.http.execute(sql`
        UPDATE ${sql.identifier(outbox.table)} SET next_attempt_at = now() + make_interval(secs => ${outbox.leaseSeconds}::int)
         WHERE id IN ${intList(toLease.map((row) => row.id))} AND status = ${outbox.pending} AND next_attempt_at <= now() + interval '1 second'
        RETURNING id`);
      const ours = new Set([...held, ...leased.map((row) => Number(row.id))]);
      const tries = await Promise.all(
        due
          .filter((row) => ours.has(row.id))
          .map(async (row) => ({ row, outcome: await outbox.attempt(row, env, context) })),
      );
      if (rows.length) {
        later.push(...(await outbox.record(db, env, tries, context)));
        await db.afterBatches();
        await announceEvents(env, db);
      }
      await requeue(outbox, env, later);
      // looked for again, still within the grace of the message that first named them: a row rolled back is given up
      if (absent.length) await outbox.queue(env, absent, 2, Number(message.queuedAt));
      log('info', 'outbox: message done', {
        outbox: outbox.table,
        ids: ids.join(','),
        found: rows.length,
        tried: tries.length,
        queued: later.length,
        dbRoundTrips: db.roundTrips(),
      });
    } finally {
      await db.close();
    }
  };
}

/** Rows the sweep queues again in one run. */
const SWEEP_BATCH = 500;

/** The cron's sweep of an outbox: pending rows past their time by a minute (a message lost, a try that died holding its lease) are queued again. */
export function outboxSweep(outbox: Outbox<OutboxRow, unknown, unknown>) {
  return async (env: Env): Promise<void> => {
    const db = openDatabase(env);
    try {
      const { rows } = await db.http.execute(sql`
        SELECT d.id FROM ${sql.identifier(outbox.table)} d
         WHERE d.status = ${outbox.pending} AND d.next_attempt_at < now() - interval '1 minute' AND ${outbox.sweepOnly ?? sql`true`}
         ORDER BY d.next_attempt_at LIMIT ${SWEEP_BATCH}`);
      if (rows.length)
        await outbox.queue(
          env,
          rows.map((row) => Number(row.id)),
        );
    } finally {
      await db.close();
    }
  };
}
