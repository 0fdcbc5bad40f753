import { and, eq, sql, type SQL } from 'drizzle-orm';
import { recalled, refuseWhen, remember } from '../../db/refusal';
import { ticketMessageRevisions, ticketMessages, tickets } from '../../db/schema';
import { tenantScope, updateRecords, updateStatement, type ResourceDeclaration, type WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';
import { messageHtml, messageText, type EditMethod } from '../../lib/html/message-body';
import { movesToWaiting, refreshPreviews, refreshPreviewsStatements, WAITING_STATUS } from './thread-entry';
import { visibleTickets } from './ticket-visibility';
import { lockTickets } from './ticket-lock';
import { ticketsResource } from './tickets.resource';

/** An entry as it was before the edit, from the edit's preparation to its finish (undefined: not there, left to the engine's 404). */
interface EntryBefore {
  ticketId: number;
  ticketStatusCode: string;
  threadType: string;
  wasDraft: boolean;
}

/**
 * Before a thread entry is edited: its ticket locked (the caller must be able to change it), the
 * new body sanitized as a new entry's is, and the old body kept as a revision when it changes. A
 * customer's message keeps its words (409); a sent entry does not become a draft again (400).
 */
export async function prepareEntryEdit(
  context: WriteContext,
  record: Record<string, unknown>,
  id: number | undefined,
): Promise<EntryBefore | undefined> {
  if (id === undefined) return undefined;
  const { tx, who } = context;
  // an entry or ticket the caller may not change is left to the engine, which answers 404
  const [found] = await tx
    .select({ ticketId: ticketMessages.ticketId })
    .from(ticketMessages)
    .where(and(tenantScope(ticketMessages, who.installationId), eq(ticketMessages.id, id)));
  if (!found) return undefined;
  const [ticket] = await lockTickets(tx, who, [found.ticketId]);
  if (!ticket) return undefined;
  const { rows } =
    await tx.execute(sql`SELECT customer_id, is_draft, html_body, text_body, edit_method, thread_type FROM ticket_messages
    WHERE id = ${id} AND installation_id = ${who.installationId} AND state = 'active' FOR UPDATE`);
  const entry = rows[0];
  if (!entry) return undefined;
  if (record.isDraft === true && entry.is_draft !== true)
    throw ApiError.invalid('message.isDraft', 'a sent entry does not become a draft again');
  if (record.message !== undefined) {
    if (entry.customer_id !== null)
      throw ApiError.conflict(
        'message.message',
        "a customer's message keeps its words: pin it or delete it, but its body is not edited",
      );
    const html = messageHtml(record.message as string, (record.editMethod ?? entry.edit_method) as EditMethod);
    record.message = html;
    if (html !== entry.html_body) {
      await tx.insert(ticketMessageRevisions).values({
        installationId: who.installationId,
        messageId: id,
        htmlBody: String(entry.html_body),
        textBody: String(entry.text_body),
        editMethod: entry.edit_method as EditMethod,
        createdBy: who.userId,
        updatedBy: who.userId,
      });
    }
  }
  return {
    ticketId: ticket.id,
    ticketStatusCode: ticket.statusCode,
    threadType: String(entry.thread_type),
    wasDraft: entry.is_draft === true,
  };
}

/**
 * Once edited: the plain text follows the body; a draft sent (`isDraft: false`) moves its ticket
 * as a reply would; the ticket's preview follows its thread.
 */
export async function finishEntryEdit(
  context: WriteContext,
  record: Record<string, unknown>,
  id: number,
  _created: boolean,
  before: EntryBefore | undefined,
): Promise<void> {
  if (!before) return;
  const { tx, who } = context;
  if (typeof record.message === 'string')
    await tx
      .update(ticketMessages)
      .set({ textBody: messageText(record.message) })
      .where(eq(ticketMessages.id, id));
  const sent = before.wasDraft && record.isDraft === false;
  if (sent && movesToWaiting(before.ticketStatusCode, { threadType: before.threadType })) {
    await updateRecords(
      tx,
      who,
      { table: tickets, type: 'tickets', where: eq(tickets.id, before.ticketId) },
      { statusId: WAITING_STATUS },
      { status: ticketsResource.fields.status!.output! },
    );
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

/** The names the batch hands values on by. */
const EDITED_TICKET = 'edited_ticket';
const WAS_DRAFT = 'edited_was_draft';

/** A body in both of its renderings, the stored edit method choosing (a body sent without `editMethod`). */
function renderedFor(body: string, editMethod: EditMethod | undefined, rendered: (html: string) => string): SQL {
  if (editMethod) return sql`${rendered(messageHtml(body, editMethod))}::text`;
  return sql`CASE WHEN ${ticketMessages.editMethod} = 'markdown' THEN ${rendered(messageHtml(body, 'markdown'))}::text ELSE ${rendered(messageHtml(body, 'html'))}::text END`;
}

/**
 * `prepareEntryEdit` and `finishEntryEdit` for an edit sent as one batch: the entry's ticket and
 * the entry locked, the same refusals, the revision kept where the body changes, the body rendered
 * by the method the entry keeps, a sent draft moving its ticket as a reply would, the preview.
 */
export const plannedEntryEdit: NonNullable<ResourceDeclaration['planned']> = {
  first(_db, who, record, id) {
    if (id === undefined) return [];
    const entry = and(
      eq(ticketMessages.id, id),
      eq(ticketMessages.installationId, who.installationId),
      eq(ticketMessages.state, 'active'),
    )!;
    const statements = [
      // the ticket, then the entry, locked; the ticket and whether the entry was a draft handed on
      sql`WITH ticket AS (SELECT ${tickets.id} FROM ${tickets} WHERE ${tickets.id} = (SELECT ${ticketMessages.ticketId} FROM ${ticketMessages} WHERE ${entry})
            AND ${and(tenantScope(tickets, who.installationId, false, 'write'), visibleTickets(who))} FOR UPDATE),
          message AS (SELECT ${ticketMessages.isDraft} AS is_draft FROM ${ticketMessages} WHERE ${entry} FOR UPDATE)
        SELECT ${remember(EDITED_TICKET, sql`coalesce((SELECT id FROM ticket), 0)`)}, ${remember(WAS_DRAFT, sql`coalesce((SELECT is_draft FROM message), false)::int`)}`,
    ];
    if (record.isDraft === true) {
      statements.push(
        refuseWhen(
          sql`EXISTS (SELECT 1 FROM ${ticketMessages} WHERE ${entry} AND NOT ${ticketMessages.isDraft})`,
          400,
          'message.isDraft',
          'a sent entry does not become a draft again',
        ),
      );
    }
    if (typeof record.message === 'string') {
      const body = record.message;
      const method = record.editMethod as EditMethod | undefined;
      const html = renderedFor(body, method, (rendered) => rendered);
      statements.push(
        refuseWhen(
          sql`EXISTS (SELECT 1 FROM ${ticketMessages} WHERE ${entry} AND ${ticketMessages.customerId} IS NOT NULL)`,
          409,
          'message.message',
          "a customer's message keeps its words: pin it or delete it, but its body is not edited",
        ),
        sql`INSERT INTO ${ticketMessageRevisions} (installation_id, message_id, html_body, text_body, edit_method, created_by, updated_by)
          SELECT ${who.installationId}::int, ${ticketMessages.id}, ${ticketMessages.htmlBody}, ${ticketMessages.textBody}, ${ticketMessages.editMethod}, ${who.userId}::int, ${who.userId}::int
            FROM ${ticketMessages} WHERE ${entry} AND ${ticketMessages.htmlBody} IS DISTINCT FROM ${html}`,
        // the plain text follows the body (the revision above kept the old one)
        sql`UPDATE ${ticketMessages} SET text_body = ${renderedFor(body, method, messageText)} WHERE ${entry}`,
      );
      // the body as stored: rendered by the method it is sent with, else the entry's own
      record.message = html;
    }
    return statements;
  },

  // `finishEntryDelete`: the ticket's preview follows its thread
  afterDelete: (_db, who, id) =>
    refreshPreviewsStatements(
      sql`(SELECT ${ticketMessages.ticketId} FROM ${ticketMessages} WHERE ${ticketMessages.id} = ${id} AND ${ticketMessages.installationId} = ${who.installationId})`,
    ),

  after(db, who, record, id) {
    const ticket = recalled(EDITED_TICKET);
    const statements: SQL[] = [];
    const sent = record.isDraft === false;
    if (sent) {
      // a draft sent moves its ticket as a reply would (`movesToWaiting`): a reply, the ticket active
      const moves = and(
        eq(tickets.id, ticket),
        sql`${recalled(WAS_DRAFT)} = 1`,
        sql`(SELECT ${ticketMessages.threadType} FROM ${ticketMessages} WHERE ${ticketMessages.id} = ${id}) = 'message'`,
        sql`(SELECT code FROM ticket_statuses WHERE id = ${tickets.statusId}) = 'active'`,
      )!;
      statements.push(
        updateStatement(
          db,
          who,
          { table: tickets, type: 'tickets', where: moves },
          { statusId: WAITING_STATUS },
          { status: ticketsResource.fields.status!.output! },
        ),
      );
    }
    if (sent || record.message !== undefined) statements.push(...refreshPreviewsStatements(sql`(SELECT ${ticket})`));
    return statements;
  },
};
