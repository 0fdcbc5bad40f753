import { sql } from 'drizzle-orm';
import type { Env } from '../app-env';
import { openDatabase, type Transaction } from '../db/client';
import { sqlState } from '../db/errors';
import type { JobMessage } from '../jobs/job-message';
import { RetryLater } from '../jobs/retry-later';
import { errorField, log } from '../lib/log';
import { configureEvents } from './record-events';
import { wants, type StoredEvent, type Subscriber } from './subscriber';

/** The queue message that asks for an installation's events to be handed to the subscribers. */
export const DRAIN_KIND = 'events.drain';

/** Tries of one event by one subscriber before it is given up (logged, and never tried again). */
export const MAX_SUBSCRIBER_ATTEMPTS = 5;

/** How long a drain waits for another drain of the installation to finish before it gives the message back. */
const LOCK_WAIT_SECONDS = 2;

/** Events read at a time, and at most this many rounds a message: a long backlog continues in the next message. */
const BATCH = 100;
const ROUNDS = 20;

export function drainMessage(installationId: number): JobMessage {
  return { kind: DRAIN_KIND, installationId };
}

interface Delivery {
  subscriber: string;
  eventId: number;
  done: boolean;
  attempts: number;
}

async function pendingEvents(tx: Transaction, installationId: number): Promise<StoredEvent[]> {
  const { rows } = await tx.execute(sql`
    SELECT id, installation_id AS "installationId", record_type AS "recordType", record_id AS "recordId", kind, data,
           actor_user_id AS "actorUserId", actor_system AS "actorSystem", occurred_at AS "occurredAt"
      FROM events WHERE installation_id = ${installationId} AND dispatched_at IS NULL
     ORDER BY id LIMIT ${BATCH}`);
  return rows.map((row) => ({ ...(row as unknown as StoredEvent), id: Number(row.id) }));
}

async function deliveriesOf(tx: Transaction, events: StoredEvent[]): Promise<Map<string, Delivery>> {
  const { rows } = await tx.execute(sql`
    SELECT subscriber, event_id AS "eventId", (handled_at IS NOT NULL OR gave_up_at IS NOT NULL) AS done, attempts
      FROM event_deliveries WHERE event_id IN (${sql.join(events.map((e) => sql`${e.id}::bigint`), sql`, `)})`);
  return new Map(rows.map((row) => [`${row.subscriber}:${row.eventId}`, { ...(row as unknown as Delivery), eventId: Number(row.eventId) }]));
}

/** Why a subscriber failed, as the deliveries table keeps it: the kind of error, never its text. */
function failureKind(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? `${(error as Error).name ?? 'Error'} ${code}` : ((error as Error)?.name ?? 'Error');
}

/**
 * One subscriber, one event: its work and the record that it was done commit together (a
 * savepoint inside the drain's transaction), so a redelivery or a drain that dies half-way never
 * does it twice. A failure is counted; past `MAX_SUBSCRIBER_ATTEMPTS` the event is given up.
 * Answers whether the event is now done for this subscriber.
 */
async function deliver(tx: Transaction, env: Env, subscriber: Subscriber, event: StoredEvent, previous: Delivery | undefined): Promise<boolean> {
  try {
    await tx.transaction(async (savepoint) => {
      await subscriber.handle(event, { tx: savepoint, env });
      await savepoint.execute(sql`
        INSERT INTO event_deliveries (subscriber, event_id, handled_at, attempts) VALUES (${subscriber.name}, ${event.id}, now(), ${previous?.attempts ?? 0})
        ON CONFLICT (subscriber, event_id) DO UPDATE SET handled_at = now()`);
    });
    return true;
  } catch (error) {
    const attempts = (previous?.attempts ?? 0) + 1;
    const givingUp = attempts >= MAX_SUBSCRIBER_ATTEMPTS;
    log(givingUp ? 'error' : 'warn', givingUp ? 'events: subscriber gave up on an event' : 'events: subscriber failed', {
      subscriber: subscriber.name, eventId: event.id, installationId: event.installationId, attempts, error: errorField(error),
    });
    await tx.execute(sql`
      INSERT INTO event_deliveries (subscriber, event_id, attempts, last_error, gave_up_at)
      VALUES (${subscriber.name}, ${event.id}, ${attempts}, ${failureKind(error)}, ${givingUp ? sql`now()` : sql`NULL`})
      ON CONFLICT (subscriber, event_id) DO UPDATE SET attempts = excluded.attempts, last_error = excluded.last_error, gave_up_at = excluded.gave_up_at`);
    return givingUp;
  }
}

/**
 * Hands the installation's pending events to the subscribers that want them, in the order they
 * happened. An event a subscriber failed on holds back that subscriber's later events of the
 * same record (their order matters) but nothing else. Answers whether events are left for later.
 */
async function drainLocked(tx: Transaction, env: Env, installationId: number, subscribers: Subscriber[]): Promise<boolean> {
  for (let round = 0; round < ROUNDS; round++) {
    const events = await pendingEvents(tx, installationId);
    if (events.length === 0) return false;
    const deliveries = await deliveriesOf(tx, events);
    const heldBack = new Set<string>();
    const done: number[] = [];
    for (const event of events) {
      let complete = true;
      for (const subscriber of subscribers) {
        if (!wants(subscriber, event)) continue;
        const previous = deliveries.get(`${subscriber.name}:${event.id}`);
        if (previous?.done) continue;
        const record = `${subscriber.name}:${event.recordType}:${event.recordId}`;
        if (heldBack.has(record) || !(await deliver(tx, env, subscriber, event, previous))) {
          heldBack.add(record);
          complete = false;
        }
      }
      if (complete) done.push(event.id);
    }
    if (done.length) {
      await tx.execute(sql`UPDATE events SET dispatched_at = now() WHERE id IN (${sql.join(done.map((id) => sql`${id}::bigint`), sql`, `)})`);
    }
    if (done.length < events.length) return true;
  }
  return true;
}

/**
 * The queue consumer of `events.drain`: one drain at a time per installation (an advisory lock
 * held by the drain's transaction), so events are handed over in order. A drain waits for one
 * already running, then takes what is left; if that takes too long, the message comes back later.
 */
export function drainEvents(subscribers: Subscriber[]) {
  return async (message: JobMessage, env: Env): Promise<void> => {
    const installationId = Number(message.installationId);
    if (!Number.isSafeInteger(installationId)) {
      log('warn', 'events: drain message without an installationId; dropped', {});
      return;
    }
    configureEvents(env);
    const db = openDatabase(env);
    try {
      const outcome = await db.transaction(async (tx) => {
        // A drain of the installation already running is waited for (it is short), not raced.
        await tx.execute(sql.raw(`SET LOCAL lock_timeout = '${LOCK_WAIT_SECONDS}s'`));
        try {
          await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('events.drain'), ${installationId}::int)`);
        } catch (error) {
          if (sqlState(error).code === '55P03') return 'busy' as const;
          throw error;
        }
        await tx.execute(sql.raw('SET LOCAL lock_timeout = 0'));
        return (await drainLocked(tx, env, installationId, subscribers)) ? ('left' as const) : ('done' as const);
      });
      if (outcome === 'busy') throw new RetryLater(2, `installation ${installationId} is being drained`);
      if (outcome === 'left') throw new RetryLater(5, `installation ${installationId} has events left to drain`);
    } finally {
      await db.close();
    }
  };
}
