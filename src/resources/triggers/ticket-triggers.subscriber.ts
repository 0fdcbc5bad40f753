import { sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import type { Subscriber } from '../../events/subscriber';
import { activitiesOfStored } from '../tickets/record-activities';
import { runTriggersOn } from './run-triggers';
import { activeTriggers, isTimeBased } from './trigger-rules';

/** The depth in its chain of a trigger set off by this event: one deeper than the run that wrote it, else 1. */
async function depthAfter(
  tx: Transaction,
  ticketId: number,
  event: { id: number; actorSystem: string | null },
): Promise<number> {
  if (event.actorSystem !== 'triggers') return 1;
  const { rows } =
    await tx.execute(sql`SELECT depth FROM trigger_chain_links WHERE ticket_id = ${ticketId} AND events_after < ${event.id} AND events_to >= ${event.id}
    ORDER BY events_to DESC LIMIT 1`);
  return rows[0] ? Number(rows[0].depth) + 1 : 1;
}

/**
 * Runs the automatic triggers on a ticket's events: its creation, a change of a property
 * conditions read, a tag, a reply or note. A change made by a trigger runs them one level deeper
 * in the chain.
 */
export const ticketTriggers: Subscriber = {
  name: 'triggers.run',
  does: "runs the installation's automatic triggers on the ticket (docs/resources/triggers.md): those whose conditions it meets act, each once, with a `triggered` event; a change a trigger makes runs them one level deeper in the chain",
  on: [
    { recordType: 'tickets', kinds: ['created'] },
    {
      recordType: 'tickets',
      kinds: ['updated'],
      changed: ['status', 'priority', 'type', 'source', 'inbox', 'agent', 'customer', 'subject'],
    },
    { recordType: 'tickets', kinds: ['linked', 'unlinked'] },
    { recordType: 'messages', kinds: ['created', 'updated'] },
  ],
  async handle(event, { tx }) {
    if (
      (event.kind === 'linked' || event.kind === 'unlinked') &&
      !['tags', 'customfields'].includes(String(event.data.relation))
    )
      return;
    const { ticketId, drafts } = await activitiesOfStored(tx, event);
    if (
      event.recordType === 'messages' &&
      !drafts.some((d) => ['ticket.agent.reply', 'ticket.customer.reply', 'ticket.note'].includes(d.eventType))
    )
      return;
    const candidates = (await activeTriggers(tx, event.installationId, 'Automatic')).filter(
      (trigger) => !isTimeBased(trigger),
    );
    if (candidates.length === 0) return;
    await runTriggersOn(
      tx,
      event.installationId,
      ticketId,
      await depthAfter(tx, ticketId, event),
      candidates,
      new Date(),
    );
  },
};
