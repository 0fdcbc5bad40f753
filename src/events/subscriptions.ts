import { sql, type SQL } from 'drizzle-orm';
import type { EventKind } from './kinds';
import type { EventInterest, StoredEvent, Subscriber } from './subscriber';

/**
 * The modules' subscribers, registered once as the Worker starts (`src/index.ts`). An event
 * nobody wants is written already dispatched, and a write of only such events sends no message
 * to the queue: the outbox costs a queue message only for events that have somewhere to go.
 */
let registered: readonly Subscriber[] = [];

export function registerSubscribers(subscribers: readonly Subscriber[]): void {
  const names = new Set<string>();
  for (const { name } of subscribers) {
    // what a subscriber handled is recorded under its name: two of one name would share it
    if (names.has(name)) throw new Error(`two event subscribers named ${name}`);
    names.add(name);
  }
  registered = subscribers;
}

export function registeredSubscribers(): readonly Subscriber[] {
  return registered;
}

/** The interests of every subscriber in events of this type and kind (of any kind when absent). */
function interestsIn(recordType: string, kind?: EventKind): EventInterest[] {
  return registered.flatMap((subscriber) =>
    subscriber.on.filter((on) => on.recordType === recordType && (!kind || !on.kinds || on.kinds.includes(kind))),
  );
}

function meets(interest: EventInterest, changed: readonly string[] | undefined): boolean {
  return !interest.changed || changed === undefined || interest.changed.some((name) => changed.includes(name));
}

/** Whether the subscriber wants this stored event. */
export function wants(subscriber: Subscriber, event: StoredEvent): boolean {
  const changed = event.kind === 'updated' ? Object.keys(event.data) : undefined;
  return subscriber.on.some(
    (on) =>
      on.recordType === event.recordType &&
      (!on.kinds || on.kinds.includes(event.kind)) &&
      (event.kind !== 'updated' || meets(on, changed)),
  );
}

/**
 * `dispatched_at` of a new event whose data is `data` (SQL): null while some subscriber has yet
 * to handle it, now when none wants it.
 */
export function initialDispatch(recordType: string, kind: EventKind, data: SQL): SQL {
  const interests = interestsIn(recordType, kind);
  if (interests.length === 0) return sql`now()`;
  if (kind !== 'updated' || interests.some((interest) => !interest.changed)) return sql`NULL::timestamptz`;
  const names = [...new Set(interests.flatMap((interest) => interest.changed ?? []))];
  return sql`CASE WHEN (${data}) ?| ARRAY[${sql.join(
    names.map((name) => sql`${name}::text`),
    sql`, `,
  )}] THEN NULL::timestamptz ELSE now() END`;
}
