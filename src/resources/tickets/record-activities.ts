import { sql, type SQL } from 'drizzle-orm';
import { ticketActivities } from '../../db/schema';
import type { StoredEvent, Subscriber } from '../../events/subscriber';
import type { Transaction } from '../../db/client';
import { activitiesOf, type ActivityDraft, type EntryFacts } from './activities-of-event';

/**
 * A reference property of a record as it was when the event happened, though the drain handles
 * the event later: the value the record's next change of that property (an event after this
 * one) found there, else the value now (`current`).
 */
function referenceAt(event: Pick<StoredEvent, 'id' | 'installationId' | 'recordId'>, recordType: string, property: string, current: SQL): SQL {
  return sql`coalesce(
    (SELECT (e.data->${property}->'before'->>'id')::int FROM events e
      WHERE e.installation_id = ${event.installationId} AND e.record_type = ${recordType} AND e.record_id = ${event.recordId}
        AND e.id > ${event.id} AND e.kind = 'updated' AND e.data ? ${property}
      ORDER BY e.id LIMIT 1),
    ${current})`;
}

/**
 * The ticket an event is about (a thread entry's: the ticket it was on then) and the history
 * lines it makes: shared by the history and by what else reads tickets' events (timings).
 */
export async function activitiesOfStored(tx: Transaction, event: StoredEvent): Promise<{ ticketId: number; drafts: ActivityDraft[] }> {
  let ticketId = event.recordId;
  let entry: EntryFacts | undefined;
  if (event.recordType === 'messages') {
    const { rows } = await tx.execute(sql`SELECT ${referenceAt(event, 'messages', 'ticket', sql`m.ticket_id`)} AS ticket_id, thread_type, customer_id IS NOT NULL AS by_customer
      FROM ticket_messages m WHERE m.id = ${event.recordId} AND m.installation_id = ${event.installationId}`);
    if (!rows[0]) return { ticketId, drafts: [] };
    ticketId = Number(rows[0].ticket_id);
    entry = { threadType: String(rows[0].thread_type), byCustomer: rows[0].by_customer === true };
  }
  return { ticketId, drafts: activitiesOf(event, entry) };
}

/**
 * Writes a ticket's history from the write events: every change of a ticket and of its thread
 * entries becomes activities (`activities-of-event.ts`), with who made it and when. An event
 * makes its activities once: a second delivery meets the unique (event, event type) key.
 */
export const recordTicketActivities: Subscriber = {
  name: 'tickets.activities',
  on: [{ recordType: 'tickets' }, { recordType: 'messages' }],
  async handle(event, { tx }) {
    const { ticketId, drafts } = await activitiesOfStored(tx, event);
    if (drafts.length === 0) return;
    const { rows } = await tx.execute(sql`SELECT ${referenceAt({ ...event, recordId: ticketId }, 'tickets', 'inbox', sql`t.inbox_id`)} AS inbox_id
      FROM tickets t WHERE t.id = ${ticketId} AND t.installation_id = ${event.installationId}`);
    if (!rows[0]) return;
    const inboxId = Number(rows[0].inbox_id);
    const at = new Date(event.occurredAt);
    await tx
      .insert(ticketActivities)
      .values(
        drafts.map((draft) => ({
          installationId: event.installationId,
          ticketId,
          eventId: event.id,
          eventType: draft.eventType,
          inboxId: draft.inboxId ?? inboxId,
          oldInboxId: draft.oldInboxId ?? null,
          statusId: draft.statusId ?? null,
          targetAgentId: draft.targetAgentId ?? null,
          messageId: draft.messageId ?? null,
          otherTicketId: draft.otherTicketId ?? null,
          actorSystem: event.actorSystem,
          changes: draft.changes,
          createdAt: at,
          updatedAt: at,
          createdBy: event.actorUserId,
          updatedBy: event.actorUserId,
        })),
      )
      .onConflictDoNothing();
  },
};
