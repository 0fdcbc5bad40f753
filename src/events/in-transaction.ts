import { sql, type SQL } from 'drizzle-orm';
import type { Env } from '../app-env';
import type { BeforeCommit, DatabaseEnv, Transaction } from '../db/client';
import { IN_FAILED_TRANSACTION, sqlState } from '../db/errors';
import { errorField, log } from '../lib/log';
import { eventsOn } from './record-events';
import type { StoredEvent, Subscriber } from './subscriber';
import { wants } from './subscriptions';


/** The most events one run hands over (a write's own are a few; a backlog beyond this is the drain's). */
const AFTER_BATCH_EVENTS = 100;

/** How long a subscriber may take over one event in the writing transaction. */
const DEADLINE_MS = 10_000;

/** How long a run after a batch waits for the one before it (of the same installation) before it leaves its events to the drain. */
const AFTER_BATCH_LOCK_WAIT_SECONDS = 2;

/**
 * Runs after batches of one installation take their turns (an advisory lock for the
 * transaction; the batch's installation found from its events): each hands over what is pending
 * up to its batch, so one finds done what the run before it did, where runs side by side would
 * all take the same events and wait on one another's rows. Answers false when the wait ran out.
 */
async function afterBatchTurn(tx: Transaction, xact: string): Promise<boolean> {
  try {
    await tx.execute(sql.raw(`
      SET LOCAL lock_timeout = '${AFTER_BATCH_LOCK_WAIT_SECONDS}s';
      SELECT pg_advisory_xact_lock(hashtext('events.afterBatch'), (SELECT installation_id FROM events WHERE xact = ${BigInt(xact)} LIMIT 1));
      SET LOCAL lock_timeout = 0`));
    return true;
  } catch (error) {
    if (sqlState(error).code === '55P03') return false;
    throw error;
  }
}

/**
 * The last work of every transaction, for the subscribers handled `inTransaction`: the events
 * the transaction wrote (found by its id, `events.xact`) that such a subscriber wants and whose
 * `where` holds are handed to it there, each in a savepoint with the record that it handled them,
 * so its work commits with the write or not at all. One that fails is rolled back to its
 * savepoint, never failing the write, and left to the drain, as are events written where no
 * transaction of ours runs (a statement on its own). What a subscriber leaves for the commit runs
 * once the write has committed. A transaction that wrote no such event pays one statement, and
 * none when its installation is known and no such subscriber may want its events (`mayWant`).
 * A write sent as one batch cannot run it: the batch asks, in its last statement, whether such a
 * subscriber wants its events (`wanted`), and if so they are handed over the same way right after
 * it commits, in a transaction of their own once the answer is sent (`Database.afterBatches`),
 * still ahead of the drain, which skips what was handled.
 */
export function inTransactionHook(subscribers: readonly Subscriber[]): BeforeCommit | undefined {
  const chosen = subscribers.filter((subscriber) => subscriber.inTransaction);
  if (chosen.length === 0) return undefined;
  const types = [...new Set(chosen.flatMap((subscriber) => subscriber.on.map((on) => on.recordType)))];
  const flags = chosen.map((subscriber, i) => sql`(${subscriber.inTransaction!.where}) AS ${sql.identifier(`for_${i}`)}`);
  /** The transaction's events (its id: `xact`, text) of the chosen subscribers' types, not yet handed over. */
  const ofTransaction = (xact: SQL) =>
    sql`e.xact = (${xact})::bigint AND e.dispatched_at IS NULL AND e.record_type IN (${sql.join(types.map((type) => sql`${type}`), sql`, `)})`;
  /**
   * After a batch: its events not handed over yet (by the run of a batch before it), and those of
   * the installation's before them that no such subscriber has touched yet (a write just before,
   * whose own run has not come; not one the drain has tried, is backing off from or gave up on),
   * in order, so that what a receiver sees keeps the order of the writes. At most
   * `AFTER_BATCH_EVENTS`: a backlog beyond is the drain's.
   */
  const upToBatch = (xact: string) => sql`e.id <= (SELECT max(b.id) FROM events b WHERE b.xact = ${xact}::bigint)
    AND e.installation_id = (SELECT b.installation_id FROM events b WHERE b.xact = ${xact}::bigint LIMIT 1)
    AND e.dispatched_at IS NULL AND e.record_type IN (${sql.join(types.map((type) => sql`${type}`), sql`, `)})
    AND NOT EXISTS (SELECT 1 FROM event_deliveries d WHERE d.event_id = e.id
                     AND d.subscriber IN (${sql.join(chosen.map((subscriber) => sql`${subscriber.name}`), sql`, `)})
                     AND (d.handled_at IS NOT NULL OR e.xact <> ${xact}::bigint))`;
  const run = async (tx: Transaction, env: DatabaseEnv, installationId: number | undefined, xact?: string): Promise<Array<() => Promise<void>>> => {
    if (!eventsOn()) return [];
    // after a batch, the batch found that some subscriber wants its events (`wanted`)
    const wanted = installationId === undefined || xact !== undefined
      ? chosen.map(() => true)
      : await Promise.all(chosen.map((subscriber) => subscriber.inTransaction!.mayWant?.(tx, installationId) ?? true));
    if (!wanted.includes(true)) return [];
    // its turn waited for in a statement of its own: the events are read after the run before it committed
    if (xact !== undefined && !(await afterBatchTurn(tx, xact))) {
      log('warn', 'events: the work after a batch waited too long for the one before it; the drain will do it', { xact });
      return [];
    }
    const { rows } = await tx.execute(sql`
      SELECT * FROM (
        SELECT e.id, e.installation_id AS "installationId", e.record_type AS "recordType", e.record_id AS "recordId", e.kind, e.data,
               e.actor_user_id AS "actorUserId", e.actor_system AS "actorSystem", e.occurred_at AS "occurredAt", ${sql.join(flags, sql`, `)}
          FROM events e
         WHERE ${xact === undefined ? ofTransaction(sql`pg_current_xact_id_if_assigned()::text`) : upToBatch(xact)}) found
       WHERE ${sql.join(chosen.map((_, i) => sql.identifier(`for_${i}`)), sql` OR `)}
       ORDER BY id LIMIT ${AFTER_BATCH_EVENTS}`);
    const committed: Array<() => Promise<void>> = [];
    for (const row of rows) {
      const event = { ...(row as unknown as StoredEvent), id: Number(row.id) };
      for (const [i, subscriber] of chosen.entries()) {
        if (!wanted[i] || row[`for_${i}`] !== true || !wants(subscriber, event)) continue;
        const afterCommit: Array<() => Promise<void>> = [];
        try {
          await tx.transaction(async (savepoint) => {
            // a handle is opened with the Worker's whole environment, not only the database's part
            await subscriber.handle(event, { tx: savepoint, env: env as unknown as Env, signal: AbortSignal.timeout(DEADLINE_MS), afterCommit: (work) => afterCommit.push(work) });
            await savepoint.execute(sql`INSERT INTO event_deliveries (event_id, subscriber, handled_at) VALUES (${event.id}::bigint, ${subscriber.name}, now())
              ON CONFLICT (event_id, subscriber) DO UPDATE SET handled_at = coalesce(event_deliveries.handled_at, now())`);
          });
          committed.push(...afterCommit);
        } catch (error) {
          log('warn', 'events: a subscriber failed in the writing transaction; the drain will hand it the event', { event: event.id, subscriber: subscriber.name, error: errorField(error) });
        }
      }
    }
    return committed.map((work) => () => work().catch((error) => log('warn', 'events: work after a write failed', { error: errorField(error) })));
  };
  return {
    run: async (tx, env, installationId, xact) => {
      try {
        return await run(tx, env, installationId, xact);
      } catch (error) {
        // work that caught its own failure (a drain finding the installation busy) left the
        // transaction aborted: its commit rolls it back, and there is nothing to hand over
        if (sqlState(error).code === IN_FAILED_TRANSACTION) return [];
        throw error;
      }
    },
    wanted: (xact) =>
      eventsOn()
        ? sql`EXISTS (SELECT 1 FROM events e WHERE ${ofTransaction(xact)} AND (${sql.join(chosen.map((subscriber) => sql`(${subscriber.inTransaction!.where})`), sql` OR `)}))`
        : sql`false`,
  };
}
