import { sql, type SQL } from 'drizzle-orm';
import type { EventKind } from './kinds';
import type { Subscriber } from './subscriber';

/**
 * Which events some subscriber wants, by record type and kind, registered once as the Worker
 * starts (`src/index.ts`). An event nobody wants is written already dispatched, and a write of
 * only such events sends no message to the queue: the outbox costs a queue message only for
 * events that have somewhere to go.
 */
const wanted = new Map<string, Set<string> | 'every kind'>();

export function registerSubscribers(subscribers: readonly Subscriber[]): void {
  wanted.clear();
  for (const subscriber of subscribers) {
    for (const { recordType, kinds } of subscriber.on) {
      const known = wanted.get(recordType);
      if (!kinds || known === 'every kind') wanted.set(recordType, 'every kind');
      else wanted.set(recordType, new Set([...(known ?? []), ...kinds]));
    }
  }
}

/** Whether some subscriber wants events of this record type (of this kind, when given). */
export function isWanted(recordType: string, kind?: EventKind): boolean {
  const kinds = wanted.get(recordType);
  if (!kinds) return false;
  return kinds === 'every kind' || kind === undefined || kinds.has(kind);
}

/** `dispatched_at` of a new event: null while some subscriber has yet to handle it, now when none wants it. */
export function initialDispatch(recordType: string, kind: EventKind): SQL {
  return isWanted(recordType, kind) ? sql`NULL::timestamptz` : sql`now()`;
}
