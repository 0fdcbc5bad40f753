import { eq, sql } from 'drizzle-orm';
import { systemActor } from '../../auth/principal';
import { conversations } from '../../db/schema';
import { createRecords, updateRecords, type WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';
import { addThreadEntry } from '../tickets/thread-entry';
import { ticketsResource } from '../tickets/tickets.resource';
import { customerOfEmail, resolveCustomer } from '../tickets/ticket-customer';

/** Why a conversation cannot become a ticket: answered as a 409 on demand, skipped when it closes. */
export class NotConvertible extends Error {}

/**
 * Makes a ticket of a conversation, in the caller's transaction: its subject (else "Chat with
 * <name>"), its inbox (else the installation's first), its contact's customer (found or made by
 * the contact's email; never a customer a widget visitor named without proving it), and its transcript as the thread, in order and with each message's time:
 * the contact's messages as the customer's, a teammate's as theirs, the AI's and the system's as
 * notes. The conversation's `ticket_id` then names the ticket. Answers the ticket's id.
 */
export async function conversationToTicket(context: WriteContext, conversationId: number): Promise<number> {
  const { tx, who } = context;
  const { rows } = await tx.execute(sql`
    SELECT c.ticket_id, c.subject, c.inbox_id, k.customer_id, k.email, k.name,
           (c.contact_form_id IS NOT NULL AND k.customer_id IS NULL AND k.email_verified_at IS NULL
              AND ${customerOfEmail(sql`c.installation_id`, sql`k.email`)} IS NOT NULL) AS unproven,
           coalesce(c.inbox_id, (SELECT min(i.id) FROM inboxes i WHERE i.installation_id = c.installation_id AND i.state = 'active')) AS inbox
      FROM conversations c LEFT JOIN contacts k ON k.id = c.contact_id
     WHERE c.id = ${conversationId} AND c.installation_id = ${who.installationId} AND c.state = 'active'
     FOR UPDATE OF c`);
  const conversation = rows[0];
  if (!conversation) throw ApiError.notFound('id', `conversation ${conversationId} not found`);
  if (conversation.ticket_id !== null) throw new NotConvertible(`conversation ${conversationId} is ticket ${conversation.ticket_id} already`);
  if (conversation.inbox === null) throw new NotConvertible('the installation has no inbox to put the ticket in');
  if (conversation.customer_id === null && !conversation.email) throw new NotConvertible('the contact left no email: a ticket needs a customer to answer');
  // a widget visitor's word names no customer: a customer's address becomes theirs once proven (contacts/email-proof.ts)
  if (conversation.unproven === true) throw new NotConvertible(`the visitor has not confirmed ${String(conversation.email)}, a customer's address, with the link mailed to it: the chat stays apart from that customer until they do`);
  const customer = conversation.customer_id !== null ? Number(conversation.customer_id) : await resolveCustomer(context, { email: String(conversation.email), firstName: conversation.name ? String(conversation.name) : undefined, lastName: undefined });
  const record: Record<string, unknown> = {
    subject: String(conversation.subject ?? '').trim() || `Chat with ${String(conversation.name || conversation.email || 'a visitor')}`.slice(0, 998),
    inbox: Number(conversation.inbox),
    customer,
  };
  await ticketsResource.beforeWrite!(context, record, undefined);
  const [ticketId] = await createRecords(tx, who, ticketsResource, [{ subject: record.subject, inboxId: record.inbox, customerId: customer, statusId: record.status, typeId: record.type ?? null }]);
  const { rows: transcript } = await tx.execute(sql`
    SELECT author, user_id, message, sent_at FROM conversation_messages
     WHERE conversation_id = ${conversationId} AND state = 'active' ORDER BY sent_at, id`);
  for (const [index, message] of transcript.entries()) {
    const byContact = message.author === 'contact';
    await addThreadEntry(context, {
      ticketId: ticketId!,
      body: String(message.message),
      editMethod: 'html',
      threadType: message.author === 'agent' || byContact ? 'message' : 'note',
      customerId: byContact ? customer : null,
      by: byContact ? null : message.user_id === null ? null : Number(message.user_id),
      at: new Date(String(message.sent_at)).toISOString(),
      opening: byContact && index === 0,
      searchLater: true,
    });
  }
  // the ticket's own finish: its search document (once, for the whole transcript), and an agent may not put it where they would not see it
  await ticketsResource.afterWrite!(context, record, ticketId!, true);
  await updateRecords(tx, who, { table: conversations, type: 'conversations', where: eq(conversations.id, conversationId) }, { ticketId }, { ticket_id: conversations.ticketId });
  return ticketId!;
}

/**
 * A conversation closed with no teammate's (or AI's) answer to the visitor becomes a ticket, so
 * the question is not lost: in the transaction of the update that closed it, once (its
 * `ticket_id` is then set; a conversation that cannot be one is left as it is). The system
 * makes it, on behalf of who closed it, so it lands in the conversation's inbox whoever that is.
 */
export async function ticketIfClosedUnanswered(context: WriteContext, record: Record<string, unknown>, id: number): Promise<void> {
  if (record.status !== 'closed') return;
  const { tx, who } = context;
  const { rows } = await tx.execute(sql`
    SELECT 1 FROM conversations c WHERE c.id = ${id} AND c.installation_id = ${who.installationId} AND c.status = 'closed' AND c.ticket_id IS NULL
       AND EXISTS (SELECT 1 FROM conversation_messages m WHERE m.conversation_id = c.id AND m.author = 'contact' AND m.state = 'active')
       AND NOT EXISTS (SELECT 1 FROM conversation_messages m WHERE m.conversation_id = c.id AND m.author IN ('agent', 'ai') AND m.state = 'active')`);
  if (rows.length === 0) return;
  try {
    await tx.transaction((savepoint) => conversationToTicket({ ...context, tx: savepoint, who: systemActor(who.installationId, 'room', who.userId) }, id));
  } catch (error) {
    if (!(error instanceof NotConvertible)) throw error;
  }
}
