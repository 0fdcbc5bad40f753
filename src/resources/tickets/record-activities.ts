import { sql, type SQL } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import type { StoredEvent } from '../../events/subscriber';
import { activitiesOf, type ActivityDraft, type EntryFacts } from './activities-of-event';

/**
 * A reference property of a record as it was when the event happened, though the drain handles
 * the event later: the value the record's next change of that property (an event after this
 * one) found there, else the value now (`current`).
 */
export function referenceAt(
  event: Pick<StoredEvent, 'id' | 'installationId' | 'recordId'>,
  recordType: string,
  property: string,
  current: SQL,
): SQL {
  return sql`coalesce(
    (SELECT (e.data->${property}->'before'->>'id')::int FROM events e
      WHERE e.installation_id = ${event.installationId} AND e.record_type = ${recordType} AND e.record_id = ${event.recordId}
        AND e.id > ${event.id} AND e.kind = 'updated' AND e.data ? ${property}
      ORDER BY e.id LIMIT 1),
    ${current})`;
}

/** A thread entry's event: the ticket it was on then and what the entry is, or null when it is gone. */
type EntryOfEvent = { ticketId: number; entry: EntryFacts } | null;

/**
 * What an event's entry was, read once for all the subscribers handed the same event (a drain
 * round hands each of them the one object, each in a transaction of its own): a round trip each would cost a far database's
 * distance five times over. The facts are the entry's own (its ticket then, its kind, its
 * writer), which no subscriber's work changes.
 */
const entriesRead = new WeakMap<StoredEvent, Promise<EntryOfEvent>>();

function readEntry(tx: Transaction, event: StoredEvent): Promise<EntryOfEvent> {
  return tx
    .execute(
      sql`SELECT ${referenceAt(event, 'messages', 'ticket', sql`m.ticket_id`)} AS ticket_id, thread_type, customer_id IS NOT NULL AS by_customer
    FROM ticket_messages m WHERE m.id = ${event.recordId} AND m.installation_id = ${event.installationId}`,
    )
    .then(({ rows }) =>
      rows[0]
        ? {
            ticketId: Number(rows[0].ticket_id),
            entry: { threadType: String(rows[0].thread_type), byCustomer: rows[0].by_customer === true },
          }
        : null,
    );
}

function entryOf(tx: Transaction, event: StoredEvent): Promise<EntryOfEvent> {
  const shared = entriesRead.get(event);
  // the subscribers work side by side, each in its own transaction: one whose read failed with its
  // transaction fails nobody else, who reads on their own
  if (shared) return shared.catch(() => readEntry(tx, event));
  const read = readEntry(tx, event);
  read.catch(() => entriesRead.delete(event));
  entriesRead.set(event, read);
  return read;
}

/**
 * The ticket an event is about (a thread entry's: the ticket it was on then) and the history
 * lines it makes: shared by the history and by what else reads tickets' events (timings).
 */
export async function activitiesOfStored(
  tx: Transaction,
  event: StoredEvent,
): Promise<{ ticketId: number; drafts: ActivityDraft[] }> {
  if (event.recordType === 'aidrafts')
    return { ticketId: Number((event.data.ticket as { id: number }).id), drafts: activitiesOf(event, undefined) };
  if (event.recordType !== 'messages') return { ticketId: event.recordId, drafts: activitiesOf(event, undefined) };
  const read = await entryOf(tx, event);
  if (!read) return { ticketId: event.recordId, drafts: [] };
  return { ticketId: read.ticketId, drafts: activitiesOf(event, read.entry) };
}
