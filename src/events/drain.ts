import { sql } from 'drizzle-orm';
import type { Env } from '../app-env';
import { openDatabase, type Database, type Transaction } from '../db/client';
import { sqlState } from '../db/errors';
import type { JobMessage } from '../jobs/job-message';
import { RetryLater } from '../jobs/retry-later';
import { errorField, log } from '../lib/log';
import { configureEvents } from './record-events';
import type { StoredEvent, Subscriber } from './subscriber';
import { registeredSubscribers, wants } from './subscriptions';

/** The queue message that asks for an installation's events to be handed to the subscribers. */
export const DRAIN_KIND = 'events.drain';

/** Tries of one event by one subscriber before it is given up (logged, and never tried again). */
export const MAX_SUBSCRIBER_ATTEMPTS = 5;

/** The wait before the next try of an event a subscriber failed on: 5 s, 20 s, 80 s, 320 s. */
export function retryDelaySeconds(failedTries: number): number {
  return 5 * 4 ** (failedTries - 1);
}

/** How long a subscriber may take over one event before it is asked to stop (`signal`). */
const SUBSCRIBER_DEADLINE_MS = 10_000;

/** How long a drain waits for another drain of the installation to finish before it gives the message back. */
const LOCK_WAIT_SECONDS = 2;

/**
 * Events read (and committed) at a time, and at most this many rounds a message: a long backlog
 * continues in the next message. A round is short, so that what waits for its commit (a
 * webhook's deliveries) is not held long.
 */
const BATCH = 20;
const ROUNDS = 100;

export function drainMessage(installationId: number): JobMessage {
  return { kind: DRAIN_KIND, installationId };
}

interface Delivery {
  done: boolean;
  /** seconds until its next try is due (after a failure); 0 or less when due */
  dueIn: number;
}

/** The installation's events not yet handed to every subscriber, after the event `after`, in order. */
async function pendingEvents(tx: Transaction, installationId: number, after: number): Promise<StoredEvent[]> {
  const { rows } = await tx.execute(sql`
    SELECT id, installation_id AS "installationId", record_type AS "recordType", record_id AS "recordId", kind, data,
           actor_user_id AS "actorUserId", actor_system AS "actorSystem", occurred_at AS "occurredAt"
      FROM events WHERE installation_id = ${installationId} AND dispatched_at IS NULL AND id > ${after}::bigint
     ORDER BY id LIMIT ${BATCH}`);
  return rows.map((row) => ({ ...(row as unknown as StoredEvent), id: Number(row.id) }));
}

async function deliveriesOf(tx: Transaction, events: StoredEvent[]): Promise<Map<string, Delivery>> {
  const { rows } = await tx.execute(sql`
    SELECT subscriber, event_id AS "eventId", (handled_at IS NOT NULL OR gave_up_at IS NOT NULL) AS done,
           coalesce(extract(epoch FROM next_attempt_at - now()), 0)::float8 AS "dueIn"
      FROM event_deliveries WHERE event_id IN (${sql.join(events.map((e) => sql`${e.id}::bigint`), sql`, `)})`);
  return new Map(rows.map((row) => [`${row.subscriber}:${row.eventId}`, { done: row.done as boolean, dueIn: Number(row.dueIn) }]));
}

/** Why a subscriber failed, as the deliveries table keeps it: the kind of error, never its text. */
function failureKind(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? `${(error as Error).name ?? 'Error'} ${code}` : ((error as Error)?.name ?? 'Error');
}

/** Whether the event is done for the subscriber; if not, when it should be tried again (absent: when the event holding it back is). */
type Outcome = { done: true } | { done: false; retryIn?: number };

/**
 * Counts a try of the event by each of `subscribers` as failed before any starts, in a statement
 * of its own that commits whatever happens next (uncounted when a try succeeds): a try that never
 * comes back (the drain died, or ran out of time) still counts, so an event that kills its drain
 * is given up like one that fails. Answers each subscriber's tries so far, this one included.
 */
async function countTries(db: Database, event: StoredEvent, subscribers: readonly Subscriber[]): Promise<Map<string, number>> {
  const { rows } = await db.http.execute(sql`
    INSERT INTO event_deliveries (event_id, subscriber, attempts)
    SELECT ${event.id}::bigint, name, 1 FROM jsonb_array_elements_text(${JSON.stringify(subscribers.map((s) => s.name))}::jsonb) AS name
    ON CONFLICT (event_id, subscriber) DO UPDATE SET attempts = event_deliveries.attempts + 1
    RETURNING subscriber, attempts`);
  return new Map(rows.map((row) => [String(row.subscriber), Number(row.attempts)]));
}

/**
 * One subscriber, one event, its try counted (`countTries`). The subscriber's work and the record
 * that it was done commit together (a savepoint in the round's transaction), so a redelivery
 * never does it twice; a failure undoes both.
 */
async function deliver(tx: Transaction, env: Env, subscriber: Subscriber, event: StoredEvent, attempts: number, round: RoundWork): Promise<Outcome> {
  const context = { event: event.id, subscriber: subscriber.name, installationId: event.installationId, attempts };
  if (attempts > MAX_SUBSCRIBER_ATTEMPTS) {
    log('error', 'events: subscriber gave up on an event', { ...context, error: 'its last try never finished' });
    await tx.execute(sql`UPDATE event_deliveries SET gave_up_at = now(), last_error = 'NoAnswer' WHERE event_id = ${event.id} AND subscriber = ${subscriber.name}`);
    return { done: true };
  }
  const afterCommit: Array<() => Promise<void>> = [];
  try {
    await tx.transaction(async (savepoint) => {
      await subscriber.handle(event, { tx: savepoint, env, signal: AbortSignal.timeout(SUBSCRIBER_DEADLINE_MS), afterCommit: (work) => afterCommit.push(work) });
      await savepoint.execute(sql`
        UPDATE event_deliveries SET handled_at = now(), attempts = attempts - 1, next_attempt_at = NULL
         WHERE event_id = ${event.id} AND subscriber = ${subscriber.name}`);
    });
    round.afterCommit.push(...afterCommit);
    return { done: true };
  } catch (error) {
    const givingUp = attempts >= MAX_SUBSCRIBER_ATTEMPTS;
    const retryIn = retryDelaySeconds(attempts);
    log(givingUp ? 'error' : 'warn', givingUp ? 'events: subscriber gave up on an event' : 'events: subscriber failed', { ...context, error: errorField(error) });
    await tx.execute(sql`
      UPDATE event_deliveries SET last_error = ${failureKind(error)},
             gave_up_at = ${givingUp ? sql`now()` : sql`NULL`},
             next_attempt_at = ${givingUp ? sql`NULL` : sql`now() + make_interval(secs => ${retryIn}::int)`}
       WHERE event_id = ${event.id} AND subscriber = ${subscriber.name}`);
    return givingUp ? { done: true } : { done: false, retryIn };
  }
}

/** What a round's tries leave for its end: work waiting for the commit. */
interface RoundWork {
  afterCommit: Array<() => Promise<void>>;
}

/** What a drain found: whether more events may be waiting past what it read, and when a held-back one is due. */
interface Progress {
  /** the last event read, or undefined when none was pending */
  last?: number;
  /** more events may be pending past `last`: the round read a whole batch, or later ones were written meanwhile */
  full: boolean;
  retryIn?: number;
}

/**
 * One round, in one transaction under the installation's drain lock: reads the next pending
 * events and hands each to the subscribers that want it, in the order they happened. An event a
 * subscriber failed on holds back that subscriber's later events of the same record (their order
 * matters) until its next try is due, but nothing else. Answers 'busy' when another drain holds
 * the lock.
 */
async function drainRound(db: Database, env: Env, installationId: number, after: number, heldBack: Set<string>): Promise<Progress | 'busy'> {
  const round: RoundWork = { afterCommit: [] };
  const progress = await db.transaction(async (tx) => {
    round.afterCommit = []; // a transaction tried again (a deadlock) starts afresh
    // A drain of the installation already running is waited for (a round is short), not raced.
    await tx.execute(sql.raw(`SET LOCAL lock_timeout = '${LOCK_WAIT_SECONDS}s'`));
    try {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('events.drain'), ${installationId}::int)`);
    } catch (error) {
      if (sqlState(error).code === '55P03') return 'busy' as const;
      throw error;
    }
    await tx.execute(sql.raw('SET LOCAL lock_timeout = 0'));
    const events = await pendingEvents(tx, installationId, after);
    if (events.length === 0) return { full: false };
    const deliveries = await deliveriesOf(tx, events);
    const progress: Progress = { last: events.at(-1)!.id, full: events.length === BATCH };
    const holdUntil = (seconds: number) => (progress.retryIn = Math.min(progress.retryIn ?? Infinity, Math.max(1, Math.ceil(seconds))));
    const done: number[] = [];
    for (const event of events) {
      let complete = true;
      const holdBack = (subscriber: Subscriber, retryIn?: number) => {
        heldBack.add(`${subscriber.name}:${event.recordType}:${event.recordId}`);
        if (retryIn !== undefined) holdUntil(retryIn);
        complete = false;
      };
      const trying: Subscriber[] = [];
      for (const subscriber of registeredSubscribers()) {
        if (!wants(subscriber, event)) continue;
        const previous = deliveries.get(`${subscriber.name}:${event.id}`);
        if (previous?.done) continue;
        if (heldBack.has(`${subscriber.name}:${event.recordType}:${event.recordId}`)) holdBack(subscriber);
        else if (previous && previous.dueIn > 0) holdBack(subscriber, previous.dueIn);
        else trying.push(subscriber);
      }
      const tries = trying.length ? await countTries(db, event, trying) : new Map<string, number>();
      for (const subscriber of trying) {
        const outcome = await deliver(tx, env, subscriber, event, tries.get(subscriber.name) ?? 1, round);
        if (!outcome.done) holdBack(subscriber, outcome.retryIn);
      }
      if (complete) done.push(event.id);
    }
    if (done.length) {
      await tx.execute(sql`UPDATE events SET dispatched_at = now() WHERE id IN (${sql.join(done.map((id) => sql`${id}::bigint`), sql`, `)})`);
    }
    // a subscriber's own writes have events too (an SLA's clocks changing a ticket): read on for them
    if (!progress.full) {
      const { rows } = await tx.execute(sql`SELECT EXISTS (SELECT 1 FROM events WHERE installation_id = ${installationId} AND dispatched_at IS NULL AND id > ${progress.last}::bigint) AS more`);
      progress.full = rows[0]?.more === true;
    }
    return progress;
  });
  await runCommitted(round.afterCommit);
  return progress;
}

/** The subscribers' work that waited for the round's commit; one that fails is logged (what it sends, a sweep sends again). */
async function runCommitted(work: Array<() => Promise<void>>): Promise<void> {
  for (const run of work) {
    try {
      await run();
    } catch (error) {
      log('warn', 'events: work after a drain round failed', { error: errorField(error) });
    }
  }
}

/**
 * The queue consumer of `events.drain`: one drain at a time per installation (an advisory lock
 * taken by each round's transaction), so events are handed over in order and what a round did
 * is kept even if a later one dies. Rounds read forward past events held back, so a failing
 * subscriber delays only the records it failed on. What is left comes back as a new message:
 * a backlog at once, an event held back when its next try is due.
 */
export async function drainEvents(message: JobMessage, env: Env): Promise<void> {
  const installationId = Number(message.installationId);
  if (!Number.isSafeInteger(installationId)) {
    log('warn', 'events: drain message without an installationId; dropped', {});
    return;
  }
  configureEvents(env);
  const db = openDatabase(env);
  const heldBack = new Set<string>();
  let after = 0;
  let retryIn: number | undefined;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const progress = await drainRound(db, env, installationId, after, heldBack);
      if (progress === 'busy') throw new RetryLater(LOCK_WAIT_SECONDS, `installation ${installationId} is being drained`);
      if (progress.retryIn !== undefined) retryIn = Math.min(retryIn ?? Infinity, progress.retryIn);
      if (!progress.full) {
        if (retryIn !== undefined) throw new RetryLater(retryIn, `installation ${installationId} has events held back`);
        return;
      }
      after = progress.last!;
    }
    throw new RetryLater(1, `installation ${installationId} has more events to drain`);
  } finally {
    await db.close();
  }
}
