import { sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import type { Subscriber } from '../../events/subscriber';
import { workingMinutesBetween } from '../../lib/working-time/index';
import { workingHoursOf } from '../businesshours/working-hours-of';
import { activitiesOfStored } from './record-activities';

const RESOLVED = ['solved', 'closed'];

/** Whole minutes from the ticket's creation to `at`: working minutes in its hours, else calendar minutes. */
async function minutesSinceCreated(tx: Transaction, installationId: number, created: Date, at: Date): Promise<number> {
  // the installation's default business hours, else calendar time
  const hours = await workingHoursOf(tx, installationId, 'default');
  const minutes = hours ? workingMinutesBetween(hours, created, at) : (at.getTime() - created.getTime()) / 60_000;
  return Math.max(0, Math.round(minutes));
}

/**
 * `responseTimeMins` and `resolutionTimeMins`, from the write events (so a reply, a sent draft, a
 * PATCH, a bulk update and a merge all count): the first teammate reply sets the response time
 * once; a move into solved or closed sets the resolution time, a move out clears it. Each is
 * computed from the event's own time, so a second delivery writes the same values.
 */
export const recordTicketTimings: Subscriber = {
  name: 'tickets.timings',
  does: "sets `responseTimeMins` on the first teammate reply and `resolutionTimeMins` on a move into solved or closed (cleared on reopening), from the event's time: a second delivery writes the same values",
  on: [
    { recordType: 'messages', kinds: ['created', 'updated'] },
    { recordType: 'tickets', kinds: ['updated'], changed: ['status'] },
  ],
  async handle(event, { tx }) {
    const { ticketId, drafts } = await activitiesOfStored(tx, event);
    const replied = drafts.some((draft) => draft.eventType === 'ticket.agent.reply');
    const status = drafts.find((draft) => draft.eventType === 'ticket.status')?.statusId;
    if (!replied && status === undefined) return;
    const { rows } = await tx.execute(sql`
      SELECT t.created_at, t.first_response_at, (SELECT s.code FROM ticket_statuses s WHERE s.id = ${status ?? null}::int) AS code
        FROM tickets t WHERE t.id = ${ticketId} AND t.installation_id = ${event.installationId}`);
    const ticket = rows[0];
    if (!ticket) return;
    const at = new Date(event.occurredAt);
    const created = new Date(String(ticket.created_at));
    if (replied && ticket.first_response_at === null) {
      const minutes = await minutesSinceCreated(tx, event.installationId, created, at);
      await tx.execute(sql`UPDATE tickets SET first_response_at = ${at.toISOString()}::timestamptz, response_time_mins = ${minutes}
        WHERE id = ${ticketId} AND first_response_at IS NULL`);
    }
    if (status === undefined || status === null) return;
    if (RESOLVED.includes(String(ticket.code))) {
      const minutes = await minutesSinceCreated(tx, event.installationId, created, at);
      await tx.execute(
        sql`UPDATE tickets SET resolved_at = ${at.toISOString()}::timestamptz, resolution_time_mins = ${minutes} WHERE id = ${ticketId}`,
      );
    } else {
      await tx.execute(sql`UPDATE tickets SET resolved_at = NULL, resolution_time_mins = NULL WHERE id = ${ticketId}`);
    }
  },
};
