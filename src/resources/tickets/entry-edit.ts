import { and, eq, sql } from 'drizzle-orm';
import { ticketMessageRevisions, ticketMessages, tickets } from '../../db/schema';
import { tenantScope, updateRecords, type WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';
import { messageHtml, messageText, type EditMethod } from '../../lib/html/message-body';
import { movesToWaiting, refreshPreviews, WAITING_STATUS } from './thread-entry';
import { lockTickets } from './ticket-lock';
import { ticketsResource } from './tickets.resource';

/** An entry as it was before the edit, from the edit's preparation to its finish. */
interface EntryBefore {
  ticketId: number;
  ticketStatusCode: string;
  threadType: string;
  wasDraft: boolean;
}

const edits = new WeakMap<Record<string, unknown>, EntryBefore>();

/**
 * Before a thread entry is edited: its ticket locked (the caller must be able to change it), the
 * new body sanitized as a new entry's is, and the old body kept as a revision when it changes. A
 * customer's message keeps its words (409); a sent entry does not become a draft again (400).
 */
export async function prepareEntryEdit(context: WriteContext, record: Record<string, unknown>, id: number | undefined): Promise<void> {
  if (id === undefined) return;
  const { tx, who } = context;
  // an entry or ticket the caller may not change is left to the engine, which answers 404
  const [found] = await tx.select({ ticketId: ticketMessages.ticketId }).from(ticketMessages).where(and(tenantScope(ticketMessages, who.installationId), eq(ticketMessages.id, id)));
  if (!found) return;
  const [ticket] = await lockTickets(tx, who, [found.ticketId]);
  if (!ticket) return;
  const { rows } = await tx.execute(sql`SELECT customer_id, is_draft, html_body, text_body, edit_method, thread_type FROM ticket_messages
    WHERE id = ${id} AND installation_id = ${who.installationId} AND state = 'active' FOR UPDATE`);
  const entry = rows[0];
  if (!entry) return;
  if (record.isDraft === true && entry.is_draft !== true) throw ApiError.invalid('message.isDraft', 'a sent entry does not become a draft again');
  if (record.message !== undefined) {
    if (entry.customer_id !== null) throw ApiError.conflict('message.message', "a customer's message keeps its words: pin it or delete it, but its body is not edited");
    const html = messageHtml(record.message as string, (record.editMethod ?? entry.edit_method) as EditMethod);
    record.message = html;
    if (html !== entry.html_body) {
      await tx.insert(ticketMessageRevisions).values({
        installationId: who.installationId, messageId: id, htmlBody: String(entry.html_body), textBody: String(entry.text_body),
        editMethod: entry.edit_method as EditMethod, createdBy: who.userId, updatedBy: who.userId,
      });
    }
  }
  edits.set(record, { ticketId: ticket.id, ticketStatusCode: ticket.statusCode, threadType: String(entry.thread_type), wasDraft: entry.is_draft === true });
}

/**
 * Once edited: the plain text follows the body; a draft sent (`isDraft: false`) moves its ticket
 * as a reply would; the ticket's preview follows its thread.
 */
export async function finishEntryEdit(context: WriteContext, record: Record<string, unknown>, id: number): Promise<void> {
  const before = edits.get(record);
  if (!before) return;
  const { tx, who } = context;
  if (typeof record.message === 'string') await tx.update(ticketMessages).set({ textBody: messageText(record.message) }).where(eq(ticketMessages.id, id));
  const sent = before.wasDraft && record.isDraft === false;
  if (sent && movesToWaiting(before.ticketStatusCode, { threadType: before.threadType })) {
    await updateRecords(tx, who, { table: tickets, type: 'tickets', where: eq(tickets.id, before.ticketId) }, { statusId: WAITING_STATUS }, { status: ticketsResource.fields.status!.output! });
  }
  if (sent || record.message !== undefined) await refreshPreviews(context, [before.ticketId]);
}

/** Once an entry is deleted: its ticket's preview follows the thread. */
export async function finishEntryDelete(context: WriteContext, id: number): Promise<void> {
  const [entry] = await context.tx
    .select({ ticketId: ticketMessages.ticketId })
    .from(ticketMessages)
    .where(and(tenantScope(ticketMessages, context.who.installationId, true), eq(ticketMessages.id, id)));
  if (entry) await refreshPreviews(context, [entry.ticketId]);
}
