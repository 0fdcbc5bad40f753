import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Actor } from '../../auth/principal';
import type { Database } from '../../db/client';
import { recalled, refuseWhen } from '../../db/refusal';
import { tickets, ticketStatuses } from '../../db/schema';
import { planOf, sendWithReadBack, tenantScope, updateStatement } from '../../engine';
import { ApiError } from '../../http/errors';
import { requireFieldsToResolveStatement } from '../customfields/ticket-values';
import { surveyStatement } from '../happiness/survey-send';
import { mentionsRelation, messagesResource } from './messages.resource';
import { ACTIVE_STATUS, threadEntryStatements, WAITING_STATUS } from './thread-entry';
import { ticketsResource } from './tickets.resource';
import { lockTicketStatement } from './ticket-lock';
import type { EntryBody } from './entry-body';

/** The names the batch hands values on by. */
const ENTRY = 'entry_id';
const STATUS_BEFORE = 'ticket_status';

/**
 * `POST /v2/tickets/{id}/messages.json` as one batch: one round trip whatever the body names
 * (docs/connection-strategy.md, "Writes in one round trip"). What the interactive write decides
 * from the locked ticket is decided by the statements themselves: the ticket is locked and its
 * status remembered first (404 when the caller may not write it), a reply moves it to waiting
 * only where it is active, a customer's reply reopens it only where it is waiting or solved, and
 * the rules of a status the body names (required fields, the survey of a solving reply) hold
 * where the status did change. Undefined when the body names another teammate as its author,
 * whose rights the Worker must look up first: the interactive write then.
 */
export async function plannedTicketEntry(db: Database, caller: Actor, id: number, body: EntryBody) {
  if (body.agent !== undefined && body.agent !== null && body.agent !== caller.userId) return undefined;
  const who = caller;
  const threadType = body.threadType ?? 'message';
  const customer = body.customer ?? undefined;
  if (customer !== undefined && (threadType !== 'message' || body.isDraft)) throw ApiError.invalid('message.customer', 'a customer writes replies: no notes, no drafts');
  const writer = db.http;
  const entryId = recalled(ENTRY);
  const statusBefore = recalled(STATUS_BEFORE);
  const statusCode = sql`(SELECT ${ticketStatuses.code} FROM ${ticketStatuses} WHERE ${ticketStatuses.id} = ${tickets.statusId})`;
  const status = body.status;
  const moveTo: { status: number; where?: SQL } | undefined =
    status !== undefined
      ? { status }
      : customer !== undefined
        ? { status: ACTIVE_STATUS, where: sql`${statusCode} IN ('waiting', 'solved')` }
        : threadType === 'message' && !body.isDraft
          ? { status: WAITING_STATUS, where: sql`${statusCode} = 'active'` }
          : undefined;
  const named = body.mentions?.length ? body.mentions.map((user) => ({ id: user })) : undefined;
  const statements: (SQL | undefined)[] = [
    // the ticket locked, its status remembered; a 404 when the caller may not write it
    lockTicketStatement(who, id, false, { name: STATUS_BEFORE, value: sql`status_id` }),
    customer === undefined ? undefined : refuseWhen(sql`NOT EXISTS (SELECT 1 FROM ${tickets} WHERE ${tickets.id} = ${id} AND ${tickets.customerId} = ${customer})`, 400, 'message.customer', `customer ${customer} is not this ticket's customer`),
    status === undefined ? undefined : refuseWhen(sql`NOT EXISTS (SELECT 1 FROM ${ticketStatuses} WHERE ${and(tenantScope(ticketStatuses, who.installationId), eq(ticketStatuses.id, status))})`, 400, 'message.status', `no ticketstatuses ${status} here`),
    ...threadEntryStatements(
      who,
      {
        ticketId: id, body: body.message, editMethod: body.editMethod ?? 'html', threadType, customerId: customer ?? null,
        cc: body.cc ?? undefined, bcc: body.bcc ?? undefined, isPinned: body.isPinned, isDraft: body.isDraft,
        files: body.files ? { ids: body.files, source: 'message.files' } : undefined,
      },
      ENTRY,
    ),
    ...(named ? planOf(mentionsRelation)!(writer, who, { type: 'messages', id: entryId }, named, 'message.mentions', true)! : []),
    ...(named ? planOf(ticketsResource.relations.followers!)!(writer, who, { type: 'tickets', id: sql`${id}::int` }, named, 'message.mentions', false)! : []),
    moveTo === undefined
      ? undefined
      : updateStatement(writer, who, { table: tickets, type: 'tickets', where: and(eq(tickets.id, id), moveTo.where)! }, { statusId: moveTo.status }, { status: ticketsResource.fields.status!.output! }),
    // the rules of a status the body names, where it changed the ticket's
    status === undefined ? undefined : requireFieldsToResolveStatement(who, sql`t.id = ${id} AND t.status_id <> ${statusBefore}`, 'message.status'),
    status === undefined || threadType !== 'message' || body.isDraft || customer !== undefined ? undefined : surveyStatement(who, id, entryId, sql`t.status_id <> ${statusBefore}`),
  ];
  const answer = await sendWithReadBack(db, messagesResource, who, statements, entryId, []);
  if (!answer) throw new Error(`the new entry of ticket ${id} is not there to read back`);
  return answer;
}
