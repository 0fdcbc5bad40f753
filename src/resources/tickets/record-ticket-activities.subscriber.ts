import { sql } from 'drizzle-orm';
import { ticketActivities } from '../../db/schema';
import type { Subscriber } from '../../events/subscriber';
import { activitiesOfStored, referenceAt } from './record-activities';

/**
 * Writes a ticket's history from the write events: every change of a ticket and of its thread
 * entries becomes activities (`activities-of-event.ts`), with who made it and when. An event
 * makes its activities once: a second delivery meets the unique (event, event type) key.
 */
export const recordTicketActivities: Subscriber = {
  name: 'tickets.activities',
  does: "writes the ticket's history lines (`docs/resources/ticketactivities.md`), once per event",
  on: [{ recordType: 'tickets' }, { recordType: 'messages' }, { recordType: 'aidrafts', kinds: ['created'] }],
  async handle(event, { tx }) {
    const { ticketId, drafts } = await activitiesOfStored(tx, event);
    if (drafts.length === 0) return;
    const { rows } =
      await tx.execute(sql`SELECT ${referenceAt({ ...event, recordId: ticketId }, 'tickets', 'inbox', sql`t.inbox_id`)} AS inbox_id
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
