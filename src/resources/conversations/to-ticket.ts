import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Env } from '../../app-env';
import { type Actor } from '../../auth/principal';
import type { Database } from '../../db/client';
import { conversations } from '../../db/schema';
import {
  createRecords,
  plannedCreateStatements,
  recordScope,
  sendWithReadBack,
  updateRecords,
  updateStatement,
  type WriteContext,
} from '../../engine';
import { ApiError } from '../../http/errors';
import { addThreadEntry, threadEntryStatement, type ThreadEntry } from '../tickets/thread-entry';
import { customerOfEmail, resolveCustomer } from '../tickets/ticket-customer';
import { refreshSearchStatement } from '../tickets/ticket-search';
import { ticketsResource } from '../tickets/tickets.resource';
import { conversationsResource } from './conversations.resource';

/** Why a conversation cannot become a ticket: answered as a 409 on demand, skipped when it closes. */
export class NotConvertible extends Error {}

/** What a conversation's ticket is made of, over the conversation `c` and its contact `k`. */
const CHAT_COLUMNS = sql`c.ticket_id, c.subject, k.customer_id, k.email, k.name,
  (c.contact_form_id IS NOT NULL AND k.customer_id IS NULL AND k.email_verified_at IS NULL
     AND ${customerOfEmail(sql`c.installation_id`, sql`k.email`)} IS NOT NULL) AS unproven,
  coalesce(c.inbox_id, (SELECT min(i.id) FROM inboxes i WHERE i.installation_id = c.installation_id AND i.state = 'active')) AS inbox`;

/** The conversation's live messages in order: the thread to be. */
const transcriptOf = (conversationId: number) => sql`
  SELECT author, user_id, message, sent_at FROM conversation_messages WHERE conversation_id = ${conversationId} AND state = 'active' ORDER BY sent_at, id`;

/** The transcript as it stands, in one value: a batch made from a transcript read before it checks that it is still the same. */
const transcriptPrint = (
  conversationId: number,
) => sql`(SELECT md5(coalesce(string_agg(m.id || ':' || m.author || ':' || m.message, E'\\n' ORDER BY m.id), ''))
  FROM conversation_messages m WHERE m.conversation_id = ${conversationId} AND m.state = 'active')`;

/** Why the conversation (its `CHAT_COLUMNS`) cannot be a ticket; undefined when it can. */
function whyNot(conversationId: number, chat: Record<string, unknown>): string | undefined {
  if (chat.ticket_id !== null) return `conversation ${conversationId} is ticket ${String(chat.ticket_id)} already`;
  if (chat.inbox === null) return 'the installation has no inbox to put the ticket in';
  if (chat.customer_id === null && !chat.email) return 'the contact left no email: a ticket needs a customer to answer';
  // a widget visitor's word names no customer: a customer's address becomes theirs once proven (contacts/email-proof.ts)
  if (chat.unproven === true)
    return `the visitor has not confirmed ${String(chat.email)}, a customer's address, with the link mailed to it: the chat stays apart from that customer until they do`;
  return undefined;
}

/** The ticket's subject (else "Chat with <name>") and inbox (else the installation's first). */
const ticketOf = (chat: Record<string, unknown>) => ({
  subject:
    String(chat.subject ?? '').trim() || `Chat with ${String(chat.name || chat.email || 'a visitor')}`.slice(0, 998),
  inbox: Number(chat.inbox),
});

/**
 * A message of the transcript as an entry of the ticket's thread, with its time: the contact's
 * as the customer's, a teammate's as theirs, the AI's and the system's as notes.
 */
function transcriptEntry<Id extends number | SQL>(
  message: Record<string, unknown>,
  index: number,
  ticketId: Id,
  customer: number | SQL,
): ThreadEntry & { ticketId: Id } {
  const byContact = message.author === 'contact';
  return {
    ticketId,
    body: String(message.message),
    editMethod: 'html',
    threadType: message.author === 'agent' || byContact ? 'message' : 'note',
    customerId: byContact ? customer : null,
    by: byContact ? null : message.user_id === null ? null : Number(message.user_id),
    at: new Date(String(message.sent_at)).toISOString(),
    opening: byContact && index === 0,
    searchLater: true,
  };
}

/**
 * Makes a ticket of a conversation, in the caller's transaction: its subject, its inbox, its
 * contact's customer (found or made by the contact's email; never a customer a widget visitor
 * named without proving it), and its transcript as the thread, in order and with each message's
 * time. The conversation's `ticket_id` then names the ticket. Answers the ticket's id. The
 * request's form is `plannedConversationTicket`; this one serves the drain (`ticketOnClose`).
 */
export async function conversationToTicket(context: WriteContext, conversationId: number): Promise<number> {
  const { tx, who } = context;
  const { rows } = await tx.execute(sql`
    SELECT ${CHAT_COLUMNS} FROM conversations c LEFT JOIN contacts k ON k.id = c.contact_id
     WHERE c.id = ${conversationId} AND c.installation_id = ${who.installationId} AND c.state = 'active'
     FOR UPDATE OF c`);
  const conversation = rows[0];
  if (!conversation) throw ApiError.notFound('id', `conversation ${conversationId} not found`);
  const problem = whyNot(conversationId, conversation);
  if (problem) throw new NotConvertible(problem);
  const customer =
    conversation.customer_id !== null
      ? Number(conversation.customer_id)
      : await resolveCustomer(context, {
          email: String(conversation.email),
          firstName: conversation.name ? String(conversation.name) : undefined,
          lastName: undefined,
        });
  const record: Record<string, unknown> = { ...ticketOf(conversation), customer };
  const before = await ticketsResource.beforeWrite!(context, record, undefined);
  const [ticketId] = await createRecords(tx, who, ticketsResource, [
    {
      subject: record.subject,
      inboxId: record.inbox,
      customerId: customer,
      statusId: record.status,
      typeId: record.type ?? null,
    },
  ]);
  const { rows: transcript } = await tx.execute(transcriptOf(conversationId));
  for (const [index, message] of transcript.entries())
    await addThreadEntry(context, transcriptEntry(message, index, ticketId!, customer));
  // the ticket's own finish: its search document (once, for the whole transcript), and an agent may not put it where they would not see it
  await ticketsResource.afterWrite!(context, record, ticketId!, true, before);
  await updateRecords(
    tx,
    who,
    { table: conversations, type: 'conversations', where: eq(conversations.id, conversationId) },
    { ticketId },
    { ticket_id: conversations.ticketId },
  );
  return ticketId!;
}

/**
 * `POST /v2/conversations/{id}/ticket.json` in two exchanges: the conversation and its transcript
 * read (the thread's entries are made in the Worker from it), then one batch: the conversation
 * locked and found unchanged (still no ticket, the same transcript: else the 409 of a lost race),
 * the ticket made as a ticket's create makes it (`plannedCreateStatements`: its customer found or
 * made by email, the inbox's defaults, the caller's sight), the transcript its thread, the
 * search document written once, the conversation's `ticket_id` set, and the ticket read back.
 * Undefined when the ticket's create needs its interactive write.
 */
export async function plannedConversationTicket(db: Database, env: Env, who: Actor, conversationId: number) {
  const { rows } = await db.http.execute(sql`
    SELECT ${CHAT_COLUMNS}, ${transcriptPrint(conversationId)} AS print,
           (SELECT coalesce(json_agg(t), '[]') FROM (${transcriptOf(conversationId)}) t) AS transcript
      FROM conversations c LEFT JOIN contacts k ON k.id = c.contact_id
     WHERE c.id = ${conversationId} AND EXISTS (SELECT 1 FROM ${conversations} WHERE ${and(recordScope(conversationsResource, who), eq(conversations.id, conversationId))})`);
  const chat = rows[0];
  if (!chat) throw ApiError.notFound('id', `conversation ${conversationId} not found`);
  const problem = whyNot(conversationId, chat);
  if (problem) throw ApiError.conflict('id', problem);
  const customer =
    chat.customer_id !== null
      ? Number(chat.customer_id)
      : { email: String(chat.email), firstName: chat.name ? String(chat.name) : undefined, lastName: undefined };
  const plan = await plannedCreateStatements(db, env, ticketsResource, who, { ...ticketOf(chat), customer });
  if (!plan) return undefined;
  const ticketCustomer = sql`(SELECT customer_id FROM tickets WHERE id = ${plan.id})`;
  const transcript = chat.transcript as Record<string, unknown>[];
  const statements = [
    unchangedCheck(who, conversationId, String(chat.print)),
    ...plan.statements,
    ...transcript.map((message, index) =>
      threadEntryStatement(who, transcriptEntry(message, index, plan.id, ticketCustomer)),
    ),
    refreshSearchStatement(sql`t.id = ${plan.id}`),
    updateStatement(
      db.http,
      who,
      { table: conversations, type: 'conversations', where: eq(conversations.id, conversationId) },
      { ticketId: plan.id },
      { ticket_id: conversations.ticketId },
    ),
  ];
  const body = await sendWithReadBack(db, ticketsResource, who, statements, plan.id, ['messages']);
  if (!body) throw new Error(`the ticket of conversation ${conversationId} is not there to read back`);
  return body;
}

/** The conversation locked, and still as it was read: there (404), no ticket yet, the same transcript (409s). */
function unchangedCheck(who: Actor, conversationId: number, print: string): SQL {
  return sql`WITH locked AS (SELECT c.id, c.ticket_id FROM conversations c WHERE c.id = ${conversationId} AND c.installation_id = ${who.installationId} AND c.state = 'active' FOR UPDATE)
    SELECT CASE
      WHEN l.id IS NULL THEN desk_refuse(404, 'id', ${`conversation ${conversationId} not found`}::text)
      WHEN l.ticket_id IS NOT NULL THEN desk_refuse(409, 'id', ${`conversation ${conversationId} is ticket `}::text || l.ticket_id || ' already')
      ELSE desk_refuse(409, 'id', ${`conversation ${conversationId} changed while it was made a ticket: send the request again`}::text) END
      FROM (SELECT 1) one LEFT JOIN locked l ON true
     WHERE l.id IS NULL OR l.ticket_id IS NOT NULL OR ${transcriptPrint(conversationId)} <> ${print}`;
}
