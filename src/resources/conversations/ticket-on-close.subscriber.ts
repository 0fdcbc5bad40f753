import { sql } from 'drizzle-orm';
import { systemActor } from '../../auth/principal';
import type { Subscriber } from '../../events/subscriber';
import { teammateWrote } from './teammate-wrote';
import { conversationToTicket, NotConvertible } from './to-ticket';

/**
 * A conversation closed with no teammate's (or AI's) answer to the visitor becomes a ticket, so
 * the question is not lost (an AI answer followed by the assistant's hand-over, a `system`
 * notice, counts as none): once the close is written, by the drain (nobody waits for it: the
 * close itself is one batch), once (its `ticket_id` is then set; a conversation that cannot be one
 * is left as it is). The system makes it, on behalf of who closed it, so it lands in the
 * conversation's inbox whoever that is.
 */
export const ticketOnClose: Subscriber = {
  name: 'conversations.ticketOnClose',
  does: "a conversation closed with the visitor's message unanswered becomes a ticket, once, on behalf of who closed it",
  on: [{ recordType: 'conversations', kinds: ['updated'], changed: ['status'] }],
  async handle(event, { tx, env }) {
    if ((event.data.status as { after?: unknown } | undefined)?.after !== 'closed') return;
    const { rows } = await tx.execute(sql`
      SELECT 1 FROM conversations c WHERE c.id = ${event.recordId} AND c.installation_id = ${event.installationId} AND c.status = 'closed' AND c.ticket_id IS NULL
         AND EXISTS (SELECT 1 FROM conversation_messages m WHERE m.conversation_id = c.id AND m.author = 'contact' AND m.state = 'active')
         AND NOT EXISTS (SELECT 1 FROM conversation_messages m WHERE m.conversation_id = c.id AND ${teammateWrote(sql`m`)})
         AND NOT EXISTS (SELECT 1 FROM conversation_messages m WHERE m.conversation_id = c.id AND m.author = 'ai' AND m.state = 'active'
           AND NOT EXISTS (SELECT 1 FROM conversation_messages h WHERE h.conversation_id = c.id AND h.author = 'system' AND h.state = 'active'))`);
    if (rows.length === 0) return;
    const who = systemActor(event.installationId, 'room', event.actorUserId);
    try {
      await tx.transaction((savepoint) => conversationToTicket({ tx: savepoint, who, env }, event.recordId));
    } catch (error) {
      if (!(error instanceof NotConvertible)) throw error;
    }
  },
};
