import type { SQL } from 'drizzle-orm';
import type { Env } from '../app-env';
import type { Transaction } from '../db/client';
import type { EventKind } from './kinds';

/** An event as subscribers get it. */
export interface StoredEvent {
  id: number;
  installationId: number;
  recordType: string;
  recordId: number;
  kind: EventKind;
  data: Record<string, unknown>;
  actorUserId: number | null;
  actorSystem: string | null;
  occurredAt: string;
}

/** Events a subscriber wants: of a record type, of these kinds (all when absent). */
export interface EventInterest {
  recordType: string;
  kinds?: readonly EventKind[];
  /** only `updated` events that changed one of these properties (the keys of the event's data) */
  changed?: readonly string[];
}

/**
 * Something a module does when records change (tell a conversation's room, run triggers, send
 * webhooks). It gets each event it wants once, in the order the events happened in the
 * installation. Whatever it writes through `tx` commits together with the record that it handled
 * the event, so that effect happens exactly once; an effect outside the database (a call to a
 * room) happens at least once and must be safe to repeat, and gives up by `signal` (the drain's
 * deadline for one event) rather than hold the drain. What must wait for the commit (a queue
 * message naming rows written through `tx`) goes to `afterCommit`: run once the writes are
 * committed, and dropped with them if they are not.
 */
export interface Subscriber {
  /** unique, as `conversations.tellRoom`: what it handled is recorded under this name */
  name: string;
  /** what it does with an event, in a sentence: docs/events.md's table of subscribers is made from it */
  does: string;
  on: readonly EventInterest[];
  /**
   * Also handled by the write itself, in SQL: `statement` (one data-modifying statement, with
   * RETURNING) does the subscriber's work for the events that `events` (SQL over the event's row
   * `e`) names. Every transaction that writes events runs it last, inside the same exchange (a
   * batch's closing statement, an interactive transaction's before its commit), over its own
   * events that the subscriber wants, of installations it `wants`, and records them handled; what it
   * returns is handed to `afterCommit` once the transaction has committed (`in-statement.ts`). The
   * drain hands it the events no write handled, as to any subscriber.
   */
  inStatement?: {
    statement(events: SQL): SQL;
    /**
     * Whether the installation (SQL, its id) may have events for it now (the fan-out's: it has an
     * enabled endpoint): only its events are handled there. A write that knows its installation
     * reads it with every closing statement, and the isolate remembers a no for 30 s, leaving the
     * statement out of that installation's writes meanwhile (its events, if it had some after all,
     * go to the drain).
     */
    wants(installation: SQL): SQL;
    afterCommit(env: Env, rows: Record<string, unknown>[]): Promise<void>;
  };
  handle(event: StoredEvent, context: SubscriberContext): Promise<void>;
}

export interface SubscriberContext {
  tx: Transaction;
  env: Env;
  signal: AbortSignal;
  afterCommit(work: () => Promise<void>): void;
}

/**
 * Waits for `work` until `signal` aborts, then fails with the signal's reason: for effects outside
 * the database, whose promise the subscriber may leave behind (never one that uses `tx`).
 */
export function withDeadline<T>(signal: AbortSignal, work: Promise<T>): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
