import { and, eq, sql, type SQL } from 'drizzle-orm';
import { recalled, remember } from '../../db/refusal';
import { ticketMessages, tickets } from '../../db/schema';
import { tenantScope, updateRecords, updateStatement, type WriteContext, type Writer } from '../../engine';
import { insertEventsFrom, recordEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { messageFields } from './message-shape';
import { refreshPreviews, refreshPreviewsStatements } from './thread-entry';
import { lockTickets } from './ticket-lock';
import { visibleTickets } from './ticket-visibility';

/** The thread entry a new ticket is split from, and the ticket it leaves. */
export interface SplitSource {
  entryId: number;
  ticketId: number;
}

/**
 * Before a ticket is created with `fromThreadId`: the entry must be a live, sent entry of a ticket
 * the caller may change (and of `fromTicketId`, when named); the new ticket's customer is the
 * entry's writer (else its ticket's customer) unless the body names one, and it starts with that
 * entry, not a `message` of its own.
 */
export async function prepareSplit(context: WriteContext, record: Record<string, unknown>): Promise<SplitSource> {
  const entryId = record.fromThreadId as number;
  const ticketId = await readSplitSource(context.tx, context.who, record);
  if ((await lockTickets(context.tx, context.who, [ticketId])).length === 0) throw notSplittable(entryId);
  return { entryId, ticketId };
}

/**
 * Once the new ticket is written: the entry moves to it, the new ticket's `parent` is the one it
 * left, and that ticket's history gets `ticket.split` (a `split` event naming both).
 */
export async function finishSplit(context: WriteContext, source: SplitSource, newTicketId: number): Promise<void> {
  const { tx, who } = context;
  await updateRecords(
    tx,
    who,
    { table: ticketMessages, type: 'messages', where: eq(ticketMessages.id, source.entryId) },
    { ticketId: newTicketId },
    { ticket: messageFields.ticket!.output! },
  );
  await tx.update(tickets).set({ parentId: source.ticketId }).where(eq(tickets.id, newTicketId));
  await recordEvents(tx, who, [
    {
      recordType: 'tickets',
      recordId: source.ticketId,
      kind: 'split',
      data: { ticket: { id: newTicketId, type: 'tickets' }, message: { id: source.entryId, type: 'messages' } },
    },
  ]);
  await refreshPreviews(context, [source.ticketId, newTicketId]);
}

/** The name the batch hands the split ticket's id on by. */
const SPLIT_FROM = 'split_from';

/**
 * The entry a split starts from, read (in the write's transaction, or before its batch: a second
 * exchange), the Worker's checks and the customer's default made from it: answers its ticket. A
 * batch then locks that ticket (`splitSourceStatement`) and moves the entry (`finishSplitStatements`).
 */
export async function readSplitSource(
  read: Pick<WriteContext['tx'], 'execute'>,
  who: WriteContext['who'],
  record: Record<string, unknown>,
): Promise<number> {
  const entryId = record.fromThreadId as number;
  if (record.message !== undefined)
    throw ApiError.invalid(
      'ticket.message',
      'a split ticket starts with the entry `fromThreadId` names, not a message of its own',
    );
  const { rows } =
    await read.execute(sql`SELECT m.ticket_id, coalesce(m.customer_id, t.customer_id) AS customer_id FROM ticket_messages m JOIN tickets t ON t.id = m.ticket_id
    WHERE m.id = ${entryId} AND m.installation_id = ${who.installationId} AND m.state = 'active' AND NOT m.is_draft`);
  const entry = rows[0];
  if (!entry) throw notSplittable(entryId);
  const ticketId = Number(entry.ticket_id);
  if (record.fromTicketId !== undefined && record.fromTicketId !== ticketId)
    throw ApiError.invalid(
      'ticket.fromTicketId',
      `thread entry ${entryId} is not on ticket ${String(record.fromTicketId)}`,
    );
  if (record.customer === undefined) record.customer = Number(entry.customer_id);
  return ticketId;
}

const notSplittable = (entryId: number) =>
  ApiError.invalid('ticket.fromThreadId', `no thread entry ${entryId} you may split off`);

/** `prepareSplit`'s lock as the batch's first statement: the entry's ticket, live and the caller's to change, locked and handed on; the 400 otherwise. */
export function splitSourceStatement(who: WriteContext['who'], entryId: number): SQL {
  const writable = and(
    tenantScope(tickets, who.installationId, false, 'write'),
    visibleTickets(who),
    sql`${tickets.id} = (SELECT m.ticket_id FROM ticket_messages m WHERE m.id = ${entryId} AND m.state = 'active' AND NOT m.is_draft)`,
  )!;
  return sql`WITH locked AS (SELECT ${tickets.id} AS id FROM ${tickets} WHERE ${writable} FOR UPDATE)
    SELECT coalesce((SELECT ${remember(SPLIT_FROM, sql`id`)} FROM locked), desk_refuse(400, 'ticket.fromThreadId', ${`no thread entry ${entryId} you may split off`}::text)::text)`;
}

/** `finishSplit` as statements of the batch, after the new ticket (`newTicketId`, SQL) is written. */
export function finishSplitStatements(db: Writer, who: WriteContext['who'], entryId: number, newTicketId: SQL): SQL[] {
  const from = recalled(SPLIT_FROM);
  return [
    updateStatement(
      db,
      who,
      { table: ticketMessages, type: 'messages', where: eq(ticketMessages.id, entryId) },
      { ticketId: newTicketId },
      { ticket: messageFields.ticket!.output! },
    ),
    sql`UPDATE ${tickets} SET parent_id = ${from} WHERE ${tickets.id} = ${newTicketId}`,
    insertEventsFrom(
      sql`(SELECT ${from} AS id)`,
      who,
      'tickets',
      'split',
      sql`jsonb_build_object('ticket', jsonb_build_object('id', ${newTicketId}, 'type', 'tickets'), 'message', jsonb_build_object('id', ${entryId}::int, 'type', 'messages'))`,
    ),
    ...refreshPreviewsStatements(sql`(${from}, ${newTicketId})`),
  ];
}
