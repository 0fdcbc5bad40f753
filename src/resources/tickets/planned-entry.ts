import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Actor } from '../../auth/principal';
import type { Database } from '../../db/client';
import { recalled, refuseWhen } from '../../db/refusal';
import { aiDrafts, tickets, ticketStatuses, users } from '../../db/schema';
import { ADMINS } from '../../auth/access';
import { visibleTickets } from './ticket-visibility';
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
 * where the status did change. An entry written as another teammate (`agent`) is checked as
 * `entryAuthor` checks it, by a statement of the batch.
 */
export async function plannedTicketEntry(db: Database, caller: Actor, id: number, body: EntryBody) {
  const { who, statements, entryId } = ticketEntryStatements(db, caller, id, body);
  const answer = await sendWithReadBack(db, messagesResource, who, statements, entryId, []);
  if (!answer) throw new Error(`the new entry of ticket ${id} is not there to read back`);
  return answer;
}

/**
 * `plannedTicketEntry`'s statements, to send in a batch of the caller's with more of its own
 * after them (mail's reply): `entryId` is the new entry's id in the statements after them, `who`
 * the entry's author.
 */
export function ticketEntryStatements(db: Database, caller: Actor, id: number, body: EntryBody) {
  const named =
    body.agent !== undefined && body.agent !== null && body.agent !== caller.userId ? body.agent : undefined;
  if (named !== undefined && (caller.kind !== 'teammate' || !ADMINS.includes(caller.role))) {
    throw ApiError.forbidden(
      'an agent writes replies and notes as itself: only owners and admins name another teammate as `agent`',
    );
  }
  // from the lock on, the entry is its author's: its audit columns, its events and what they make
  const who: Actor = named === undefined ? caller : { ...caller, userId: named };
  const threadType = body.threadType ?? 'message';
  const customer = body.customer ?? undefined;
  if (customer !== undefined && (threadType !== 'message' || body.isDraft))
    throw ApiError.invalid('message.customer', 'a customer writes replies: no notes, no drafts');
  const aiDraft = body.aiDraft;
  if (aiDraft !== undefined && (threadType !== 'message' || customer !== undefined || body.isDraft))
    throw ApiError.invalid(
      'message.aiDraft',
      "an AI draft is sent as a teammate's reply: not as a note, a draft or the customer's reply",
    );
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
  const mentioned = body.mentions?.length ? body.mentions.map((user) => ({ id: user })) : undefined;
  const statements: (SQL | undefined)[] = [
    // the ticket locked, its status remembered; a 404 when the caller may not write it
    lockTicketStatement(caller, id, false, { name: STATUS_BEFORE, value: sql`status_id` }),
    named === undefined ? undefined : authorCheck(caller, id, named),
    customer === undefined
      ? undefined
      : refuseWhen(
          sql`NOT EXISTS (SELECT 1 FROM ${tickets} WHERE ${tickets.id} = ${id} AND ${tickets.customerId} = ${customer})`,
          400,
          'message.customer',
          `customer ${customer} is not this ticket's customer`,
        ),
    aiDraft === undefined
      ? undefined
      : refuseWhen(
          sql`NOT EXISTS (SELECT 1 FROM ${aiDrafts} WHERE ${and(tenantScope(aiDrafts, who.installationId), eq(aiDrafts.id, aiDraft), eq(aiDrafts.ticketId, id), eq(aiDrafts.state, 'active'))})`,
          400,
          'message.aiDraft',
          `no aidrafts ${aiDraft} of this ticket`,
        ),
    status === undefined
      ? undefined
      : refuseWhen(
          sql`NOT EXISTS (SELECT 1 FROM ${ticketStatuses} WHERE ${and(tenantScope(ticketStatuses, who.installationId), eq(ticketStatuses.id, status))})`,
          400,
          'message.status',
          `no ticketstatuses ${status} here`,
        ),
    ...threadEntryStatements(
      who,
      {
        ticketId: id,
        body: body.message,
        editMethod: body.editMethod ?? 'html',
        threadType,
        customerId: customer ?? null,
        cc: body.cc ?? undefined,
        bcc: body.bcc ?? undefined,
        isPinned: body.isPinned,
        isDraft: body.isDraft,
        files: body.files ? { ids: body.files, source: 'message.files' } : undefined,
        aiDraftId: aiDraft,
      },
      ENTRY,
    ),
    ...(mentioned
      ? planOf(mentionsRelation)!(writer, who, { type: 'messages', id: entryId }, mentioned, 'message.mentions', true)!
      : []),
    ...(mentioned
      ? planOf(ticketsResource.relations.followers!)!(
          writer,
          who,
          { type: 'tickets', id: sql`${id}::int` },
          mentioned,
          'message.mentions',
          false,
        )!
      : []),
    moveTo === undefined
      ? undefined
      : updateStatement(
          writer,
          who,
          { table: tickets, type: 'tickets', where: and(eq(tickets.id, id), moveTo.where)! },
          { statusId: moveTo.status },
          { status: ticketsResource.fields.status!.output! },
        ),
    // the rules of a status the body names, where it changed the ticket's
    status === undefined
      ? undefined
      : requireFieldsToResolveStatement(who, sql`t.id = ${id} AND t.status_id <> ${statusBefore}`, 'message.status'),
    status === undefined || threadType !== 'message' || body.isDraft || customer !== undefined
      ? undefined
      : surveyStatement(who, id, entryId, sql`t.status_id <> ${statusBefore}`),
  ];
  return { who, statements: statements.filter((statement): statement is SQL => statement !== undefined), entryId };
}

/**
 * `entryAuthor`'s rules as a check of the batch: the teammate named is an active owner, admin or
 * agent of the installation, and an agent works the ticket (a member of its inbox, or assigned
 * it where their access is restricted); a 400 naming `agent` otherwise.
 */
function authorCheck(caller: Actor, ticketId: number, agent: number): SQL {
  const asAgent = visibleTickets({ ...caller, userId: agent, role: 'agent' } as Actor)!;
  return sql`SELECT CASE
      WHEN u.id IS NULL THEN desk_refuse(400, 'message.agent', ${`no active teammate ${agent} here`}::text)
      WHEN u.role = 'collaborator' THEN desk_refuse(400, 'message.agent', 'a collaborator writes no replies or notes: name an owner, admin or agent')
      ELSE desk_refuse(400, 'message.agent', ${`teammate ${agent} does not work this ticket (not a member of its inbox, or restricted to their own tickets)`}::text) END
    FROM (SELECT 1) one LEFT JOIN (SELECT ${users.id} AS id, ${users.role} AS role FROM ${users} WHERE ${and(tenantScope(users, caller.installationId), eq(users.id, agent))}) u ON true
   WHERE u.id IS NULL OR u.role = 'collaborator'
      OR (u.role = 'agent' AND NOT EXISTS (SELECT 1 FROM ${tickets} WHERE ${tickets.id} = ${ticketId} AND ${asAgent}))`;
}
