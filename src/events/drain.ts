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
/**
 * And at most this long a message (its rounds started within it): a backlog far from the
 * database continues in a new message at the back of the queue, so the messages queued behind
 * this one (an import, another installation's drain) get their turn.
 */
const SLICE_MS = 10_000;

export function drainMessage(installationId: number): JobMessage {
  return { kind: DRAIN_KIND, installationId };
}

interface Delivery {
  done: boolean;
  /** seconds until its next try is due (after a failure); 0 or less when due */
  dueIn: number;
}

/** A pending event and its subscribers' deliveries so far, by subscriber. */
interface Pending {
  event: StoredEvent;
  deliveries: Map<string, Delivery>;
}

/**
 * Takes the installation's drain lock in the round's transaction, waiting up to
 * LOCK_WAIT_SECONDS for a drain that holds it: false when another drain kept it.
 */
async function takeDrainLock(tx: Transaction, installationId: number): Promise<boolean> {
  try {
    await tx.execute(
      sql.raw(`
      SET LOCAL lock_timeout = '${LOCK_WAIT_SECONDS}s';
      SELECT pg_advisory_xact_lock(hashtext('events.drain'), ${installationId}::int);
      SET LOCAL lock_timeout = 0`),
    );
    return true;
  } catch (error) {
    if (sqlState(error).code === '55P03') return false;
    throw error;
  }
}

/**
 * The next pending events after `after`, in order, each with its subscribers' deliveries so far,
 * read once the lock is held. Over HTTP, not in the round's transaction: that transaction then
 * holds no lock on a table while the lanes work, so a statement waiting for one (a migration's
 * `ALTER TABLE`) cannot make the lanes' statements queue behind it while the round waits for
 * them, a wait Postgres would not see as a deadlock.
 */
async function readPending(db: Database, installationId: number, after: number): Promise<Pending[]> {
  const { rows } = await db.http.execute(sql`
    SELECT e.id, e.installation_id AS "installationId", e.record_type AS "recordType", e.record_id AS "recordId", e.kind, e.data,
           e.actor_user_id AS "actorUserId", e.actor_system AS "actorSystem", e.occurred_at AS "occurredAt",
           (SELECT coalesce(jsonb_agg(jsonb_build_object('subscriber', d.subscriber,
                     'done', d.handled_at IS NOT NULL OR d.gave_up_at IS NOT NULL,
                     'dueIn', coalesce(extract(epoch FROM d.next_attempt_at - now()), 0)::float8)), '[]')
              FROM event_deliveries d WHERE d.event_id = e.id) AS deliveries
      FROM events e WHERE e.installation_id = ${installationId} AND e.dispatched_at IS NULL AND e.id > ${after}::bigint
     ORDER BY e.id LIMIT ${BATCH}`);
  return rows.map(({ deliveries, ...row }) => ({
    event: { ...(row as unknown as StoredEvent), id: Number(row.id) },
    deliveries: new Map(
      (deliveries as Array<Delivery & { subscriber: string }>).map(({ subscriber, ...delivery }) => [
        subscriber,
        delivery,
      ]),
    ),
  }));
}

/** Why a subscriber failed, as the deliveries table keeps it: the kind of error, never its text. */
function failureKind(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? `${(error as Error).name ?? 'Error'} ${code}` : ((error as Error)?.name ?? 'Error');
}

/** One subscriber's try of one event in a round. */
interface Try {
  event: StoredEvent;
  subscriber: Subscriber;
}

/**
 * Counts a try of each event by each subscriber as failed before any starts, in one statement of
 * its own that commits whatever happens next (uncounted when a try succeeds): a try that never
 * comes back (the drain died, or ran out of time) still counts, so an event that kills its drain
 * is given up like one that fails. Answers each try's count so far, this one included, by
 * `event:subscriber`.
 */
async function countTries(db: Database, tries: readonly Try[]): Promise<Map<string, number>> {
  const pairs = JSON.stringify(
    tries.map(({ event, subscriber }) => ({ event_id: event.id, subscriber: subscriber.name })),
  );
  const { rows } = await db.http.execute(sql`
    INSERT INTO event_deliveries (event_id, subscriber, attempts)
    SELECT x.event_id, x.subscriber, 1 FROM jsonb_to_recordset(${pairs}::jsonb) AS x(event_id bigint, subscriber text)
    ON CONFLICT (event_id, subscriber) DO UPDATE SET attempts = event_deliveries.attempts + 1
    RETURNING event_id, subscriber, attempts`);
  return new Map(rows.map((row) => [`${row.event_id}:${row.subscriber}`, Number(row.attempts)]));
}

/** One subscriber's tries in a round, in the order the events happened. */
interface Lane {
  subscriber: Subscriber;
  tries: StoredEvent[];
}

/** What a lane's transaction did: the events it is done with, and its failure, if one ended it. */
interface LaneOutcome {
  done: number[];
  failed?: { event: StoredEvent; retryIn?: number };
  /** tries counted whose work did not commit (rolled back with the failure, or never made): uncounted at the round's end */
  untried: number[];
}

/**
 * A subscriber's try failed (its error), as opposed to the lane's transaction (the connection,
 * the commit). Its cause is the failure: a race lost to another lane (a deadlock) runs the lane again.
 */
class TryFailed extends Error {
  constructor(
    readonly index: number,
    readonly failure: unknown,
  ) {
    super('a subscriber failed', { cause: failure });
  }
}

/**
 * A lane commits once its transaction has been open this long (after the try in hand): what a try
 * locked (a ticket whose SLA clocks it updates) is not kept from a write waiting for it much longer.
 */
const LANE_COMMIT_MS = 1_000;

/**
 * One subscriber's tries of a round in a transaction of its own (or a few, one after another:
 * `LANE_COMMIT_MS`), on the subscriber's own connection, side by side with the other
 * subscribers': the round costs its slowest subscriber's exchanges, not the sum of everyone's.
 * Each try is the subscriber's own statements; the records that it handled them ride in one
 * statement at the end, and commit together with what they did, so a redelivery never does it
 * twice. A try that fails rolls back its transaction: the failure is recorded (it is tried again
 * when due, or given up), and the lane's tries not committed are left for the next round,
 * uncounted. A transaction that fails past its tries (the record of them) is run again one try a
 * transaction, so that the failure is the try's own.
 */
async function runLane(
  db: Database,
  env: Env,
  { subscriber, tries }: Lane,
  counts: Map<string, number>,
): Promise<LaneOutcome> {
  const done: number[] = [];
  let rest = tries;
  while (rest.length > 0) {
    const lane = { subscriber, tries: rest };
    let failed: LaneOutcome;
    try {
      const taken = await laneTransaction(db, env, lane, counts);
      done.push(...rest.slice(0, taken).map(({ id }) => id));
      rest = rest.slice(taken);
      continue;
    } catch (error) {
      if (error instanceof TryFailed) failed = await failedTry(db, lane, error.index, error.failure, counts);
      else if (rest.length === 1) failed = await failedTry(db, lane, 0, error, counts);
      else failed = await oneByOne(db, env, lane, counts);
    }
    return { ...failed, done: [...done, ...failed.done] };
  }
  return { done, untried: [] };
}

/** The tries of a lane, each in a transaction of its own, up to the first that fails. */
async function oneByOne(
  db: Database,
  env: Env,
  { subscriber, tries }: Lane,
  counts: Map<string, number>,
): Promise<LaneOutcome> {
  const done: number[] = [];
  for (const [index, event] of tries.entries()) {
    const alone = await runLane(db, env, { subscriber, tries: [event] }, counts);
    done.push(...alone.done);
    if (alone.failed) return { done, failed: alone.failed, untried: tries.slice(index + 1).map(({ id }) => id) };
  }
  return { done, untried: [] };
}

/** A try's count of tries so far, this one included. */
const attemptsOf = (counts: Map<string, number>, subscriber: Subscriber, event: StoredEvent) =>
  counts.get(`${event.id}:${subscriber.name}`) ?? 1;

/** The lane's first tries, in one transaction, until `LANE_COMMIT_MS` is spent: answers how many it committed. */
async function laneTransaction(
  db: Database,
  env: Env,
  { subscriber, tries }: Lane,
  counts: Map<string, number>,
): Promise<number> {
  let afterCommit: Array<() => Promise<void>> = [];
  let taken = 0;
  await db.transaction(
    async (tx) => {
      // a transaction run again after a lost race starts afresh
      afterCommit = [];
      taken = 0;
      const started = Date.now();
      const handled: number[] = [];
      const unanswered: number[] = [];
      for (const [index, event] of tries.entries()) {
        if (index > 0 && Date.now() - started >= LANE_COMMIT_MS) break;
        taken = index + 1;
        const attempts = attemptsOf(counts, subscriber, event);
        if (attempts > MAX_SUBSCRIBER_ATTEMPTS) {
          log('error', 'events: subscriber gave up on an event', {
            event: event.id,
            subscriber: subscriber.name,
            installationId: event.installationId,
            attempts,
            error: 'its last try never finished',
          });
          unanswered.push(event.id);
          continue;
        }
        try {
          await subscriber.handle(event, {
            tx,
            env,
            signal: AbortSignal.timeout(SUBSCRIBER_DEADLINE_MS),
            afterCommit: (work) => afterCommit.push(work),
          });
        } catch (error) {
          throw new TryFailed(index, error);
        }
        handled.push(event.id);
      }
      await tx.execute(sql`
      WITH handled AS (
             UPDATE event_deliveries SET handled_at = now(), attempts = attempts - 1, next_attempt_at = NULL
              WHERE subscriber = ${subscriber.name} AND event_id IN (SELECT value::bigint FROM jsonb_array_elements_text(${JSON.stringify(handled)}::jsonb)) RETURNING 1),
           unanswered AS (
             UPDATE event_deliveries SET gave_up_at = now(), last_error = 'NoAnswer'
              WHERE subscriber = ${subscriber.name} AND event_id IN (SELECT value::bigint FROM jsonb_array_elements_text(${JSON.stringify(unanswered)}::jsonb)) RETURNING 1)
      SELECT (SELECT count(*) FROM handled) + (SELECT count(*) FROM unanswered) AS marked`);
    },
    { quiet: true },
  );
  await runCommitted(afterCommit);
  return taken;
}

/** Records a failed try (tried again when due, or given up after the last); the lane's other tries are left for the next round. */
async function failedTry(
  { http }: Database,
  { subscriber, tries }: Lane,
  index: number,
  failure: unknown,
  counts: Map<string, number>,
): Promise<LaneOutcome> {
  const event = tries[index]!;
  const attempts = attemptsOf(counts, subscriber, event);
  const givingUp = attempts >= MAX_SUBSCRIBER_ATTEMPTS;
  const retryIn = retryDelaySeconds(attempts);
  log(givingUp ? 'error' : 'warn', givingUp ? 'events: subscriber gave up on an event' : 'events: subscriber failed', {
    event: event.id,
    subscriber: subscriber.name,
    installationId: event.installationId,
    attempts,
    error: errorField(failure),
  });
  await http.execute(sql`
    UPDATE event_deliveries SET last_error = ${failureKind(failure)},
           gave_up_at = ${givingUp ? sql`now()` : sql`NULL`},
           next_attempt_at = ${givingUp ? sql`NULL` : sql`now() + make_interval(secs => ${retryIn}::int)`}
     WHERE event_id = ${event.id} AND subscriber = ${subscriber.name}`);
  const untried = tries.filter((_, i) => i !== index).map(({ id }) => id);
  return givingUp ? { done: [event.id], untried } : { done: [], failed: { event, retryIn }, untried };
}

/** What a drain found: whether more events may be waiting past what it read, and when a held-back one is due. */
interface Progress {
  /** the last event read, or undefined when none was pending */
  last?: number;
  /** more events may be pending past `last`: the round read a whole batch, or later ones were written meanwhile */
  full: boolean;
  retryIn?: number;
}

/** Each subscriber's own handle for a drain: its lane's connection, opened on first use and kept for the drain's rounds. */
type LaneHandles = (subscriber: Subscriber) => Database;

/**
 * One round, under the installation's drain lock (an advisory lock its transaction holds): reads
 * the next pending events and hands each to the subscribers that want it, in the order they
 * happened, each subscriber in its own lane (`runLane`). An event a subscriber failed on holds
 * back that subscriber's later events of the same record (their order matters) until its next
 * try is due, but nothing else. Answers 'busy' when another drain holds the lock.
 *
 * Its exchanges with the database (docs/events.md, "At a distance"): the lock; the read (over
 * HTTP); the tries of the whole round counted in one (over HTTP, committed at once); the lanes side
 * by side; the held-back tries uncounted, the events dispatched and whether more are pending in
 * one; then the commit.
 */
async function drainRound(
  db: Database,
  lanes: LaneHandles,
  env: Env,
  installationId: number,
  after: number,
  heldBack: Set<string>,
): Promise<Progress | 'busy'> {
  return db.transaction(
    async (tx) => {
      // A drain of the installation already running is waited for (a round is short), not raced.
      if (!(await takeDrainLock(tx, installationId))) return 'busy' as const;
      const read = await readPending(db, installationId, after);
      if (read.length === 0) return { full: false };
      // An event with a try that did not end well (it failed, or never came back: it may kill the
      // drain) is tried in a round of its own, so that the tries counted for the round's others are
      // their own: the round stops before it, or is only it.
      const suspect = read.findIndex(({ deliveries }) => [...deliveries.values()].some((d) => !d.done && d.dueIn <= 0));
      const inRound = suspect === -1 ? read : read.slice(0, Math.max(1, suspect));
      const events = inRound.map(({ event }) => event);
      const progress: Progress = {
        last: events.at(-1)!.id,
        full: read.length === BATCH || events.length < read.length,
      };
      const holdUntil = (seconds: number) =>
        (progress.retryIn = Math.min(progress.retryIn ?? Infinity, Math.max(1, Math.ceil(seconds))));
      const incomplete = new Set<number>();
      const holdBack = (event: StoredEvent, subscriber: Subscriber, retryIn?: number) => {
        heldBack.add(`${subscriber.name}:${event.recordType}:${event.recordId}`);
        if (retryIn !== undefined) holdUntil(retryIn);
        incomplete.add(event.id);
      };
      // which tries the round makes, by subscriber: those due, in order; their counts in one statement
      const bySubscriber = new Map<Subscriber, StoredEvent[]>();
      for (const { event, deliveries } of inRound) {
        for (const subscriber of registeredSubscribers()) {
          if (!wants(subscriber, event)) continue;
          const previous = deliveries.get(subscriber.name);
          if (previous?.done) continue;
          if (heldBack.has(`${subscriber.name}:${event.recordType}:${event.recordId}`)) holdBack(event, subscriber);
          else if (previous && previous.dueIn > 0) holdBack(event, subscriber, previous.dueIn);
          else bySubscriber.set(subscriber, [...(bySubscriber.get(subscriber) ?? []), event]);
        }
      }
      const tries = [...bySubscriber].flatMap(([subscriber, queued]) => queued.map((event) => ({ event, subscriber })));
      const counts = tries.length ? await countTries(db, tries) : new Map<string, number>();
      const outcomes = await Promise.all(
        [...bySubscriber].map(async ([subscriber, queued]) => ({
          subscriber,
          ...(await runLane(lanes(subscriber), env, { subscriber, tries: queued }, counts)),
        })),
      );
      const untried: Array<{ event_id: number; subscriber: string }> = [];
      for (const { subscriber, failed, untried: left } of outcomes) {
        if (failed) holdBack(failed.event, subscriber, failed.retryIn);
        for (const id of left) {
          untried.push({ event_id: id, subscriber: subscriber.name });
          incomplete.add(id);
          // not tried: read again by the next round, unless the failure holds back its record
          progress.last = Math.min(progress.last!, id - 1);
          progress.full = true;
        }
      }
      const done = events.filter((event) => !incomplete.has(event.id)).map((event) => event.id);
      // the tries a failure left unmade uncounted (a first one leaves no row), the events every
      // subscriber is done with dispatched, and whether an event past the last one read is pending
      // (a subscriber's own writes have events too: an SLA's clocks changing a ticket), in one statement
      const { rows } = await tx.execute(sql`
      WITH untried AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(untried)}::jsonb) AS x(event_id bigint, subscriber text)),
           uncounted AS (
             UPDATE event_deliveries d SET attempts = d.attempts - 1 FROM untried x
              WHERE d.event_id = x.event_id AND d.subscriber = x.subscriber AND d.attempts > 1 RETURNING 1),
           unmade AS (
             DELETE FROM event_deliveries d USING untried x
              WHERE d.event_id = x.event_id AND d.subscriber = x.subscriber AND d.attempts = 1 RETURNING 1),
           dispatched AS (
             UPDATE events SET dispatched_at = now()
              WHERE id IN (SELECT value::bigint FROM jsonb_array_elements_text(${JSON.stringify(done)}::jsonb)) RETURNING 1)
      SELECT EXISTS (SELECT 1 FROM events WHERE installation_id = ${installationId} AND dispatched_at IS NULL AND id > ${progress.last}::bigint) AS more`);
      if (!progress.full) progress.full = rows[0]?.more === true;
      return progress;
      // what its subscribers wrote is found by its own last statement (`more`), not reported
    },
    { quiet: true },
  );
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
  db.installationId = installationId;
  const laneHandles = new Map<string, Database>();
  const lanes: LaneHandles = (subscriber) => {
    let handle = laneHandles.get(subscriber.name);
    if (!handle) {
      laneHandles.set(subscriber.name, (handle = openDatabase(env)));
      handle.installationId = installationId;
    }
    return handle;
  };
  const heldBack = new Set<string>();
  let after = 0;
  let retryIn: number | undefined;
  const started = Date.now();
  try {
    for (let round = 0; round < ROUNDS && Date.now() - started < SLICE_MS; round++) {
      const progress = await drainRound(db, lanes, env, installationId, after, heldBack);
      if (progress === 'busy')
        throw new RetryLater(LOCK_WAIT_SECONDS, `installation ${installationId} is being drained`);
      if (progress.retryIn !== undefined) retryIn = Math.min(retryIn ?? Infinity, progress.retryIn);
      if (!progress.full) {
        if (retryIn !== undefined) throw new RetryLater(retryIn, `installation ${installationId} has events held back`);
        return;
      }
      after = progress.last!;
    }
    throw new RetryLater(1, `installation ${installationId} has more events to drain`);
  } finally {
    await Promise.all([db, ...laneHandles.values()].map((handle) => handle.close()));
  }
}
