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

/**
 * Something a module does when records change (tell a conversation's room, run triggers, send
 * webhooks). It gets each event it wants once, in the order the events happened in the
 * installation. Whatever it writes through `tx` commits together with the record that it handled
 * the event, so that effect happens exactly once; an effect outside the database (a call to a
 * room) happens at least once and must be safe to repeat.
 */
export interface Subscriber {
  /** unique, as `conversations.tellRoom`: what it handled is recorded under this name */
  name: string;
  /** the events it wants: of these record types, and of these kinds (all kinds when absent) */
  on: { recordType: string; kinds?: readonly EventKind[] }[];
  handle(event: StoredEvent, context: { tx: Transaction; env: Env }): Promise<void>;
}

export function wants(subscriber: Subscriber, event: StoredEvent): boolean {
  return subscriber.on.some((on) => on.recordType === event.recordType && (!on.kinds || on.kinds.includes(event.kind)));
}
