import { sql } from 'drizzle-orm';
import { type Transaction } from '../../db/client';
import type { Subscriber } from '../../events/subscriber';
import { activitiesOfStored } from '../tickets/record-activities';
import { type ClockChange } from './sla-clock';
import { evaluateTicket } from './sla-tickets';

/** The ticket's status codes before and after a status change, by the statuses' ids. */
async function statusCodes(
  tx: Transaction,
  change: Record<string, unknown>,
): Promise<{ statusFrom?: string; statusTo?: string }> {
  const idOf = (side: unknown) =>
    side && typeof side === 'object' && 'id' in side ? Number((side as { id: unknown }).id) : null;
  const from = idOf(change.before);
  const to = idOf(change.after);
  const { rows } = await tx.execute(
    sql`SELECT id, code FROM ticket_statuses WHERE id IN (${from ?? 0}::int, ${to ?? 0}::int)`,
  );
  const code = (id: number | null) => rows.find((row) => Number(row.id) === id)?.code as string | undefined;
  return { statusFrom: code(from), statusTo: code(to) };
}

/**
 * Keeps every ticket's SLA as its events come: a new ticket gets its policy and due times; a
 * change of status, priority, inbox, type, customer or tags finds the policy again; the clocks
 * stop and start with the status; a teammate's reply meets the first response or the next reply,
 * a customer's message starts the next reply. The cron (`checkSlaClocks`) catches the time passing.
 */
export const ticketSlaClock: Subscriber = {
  name: 'slas.clock',
  does: "keeps the ticket's SLA: its policy and due times when made, the policy found again when a property it reads changes, the clocks stopped and started with the status, a reply meeting its target; the cron catches the time passing",
  on: [
    { recordType: 'tickets', kinds: ['created'] },
    { recordType: 'tickets', kinds: ['updated'], changed: ['status', 'priority', 'inbox', 'type', 'customer'] },
    { recordType: 'tickets', kinds: ['linked', 'unlinked'] },
    { recordType: 'messages', kinds: ['created', 'updated'] },
  ],
  async handle(event, { tx }) {
    if ((event.kind === 'linked' || event.kind === 'unlinked') && event.data.relation !== 'tags') return;
    const { ticketId, drafts } = await activitiesOfStored(tx, event);
    const change: ClockChange = { at: new Date(event.occurredAt) };
    for (const draft of drafts) {
      if (draft.eventType === 'ticket.created') change.created = true;
      if (draft.eventType === 'ticket.agent.reply') change.teammateReply = true;
      if (draft.eventType === 'ticket.customer.reply') change.customerReply = true;
      if (draft.eventType === 'ticket.status')
        Object.assign(change, await statusCodes(tx, draft.changes.status as Record<string, unknown>));
    }
    if (event.recordType === 'messages' && !change.teammateReply && !change.customerReply) return;
    await evaluateTicket(tx, event.installationId, ticketId, change, new Date());
  },
};
