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
  on: readonly EventInterest[];
  /**
   * Also handled in the transaction that writes the event, last thing before it commits, when
   * `where` (SQL over the event's row `e`) holds: its work then commits with the write, and what
   * it sends after the commit waits for no drain (`in-transaction.ts`). The drain hands it the
   * events it did not handle there.
   */
  inTransaction?: {
    where: SQL;
    /**
     * False when the subscriber surely wants none of the installation's events now (a cache of the
     * isolate's): the transaction then skips the statement that looks for them. A stale false
     * leaves the events to the drain; a stale true costs that statement.
     */
    mayWant?(tx: Transaction, installationId: number): Promise<boolean>;
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
