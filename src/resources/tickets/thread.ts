import { and, eq } from 'drizzle-orm';
import { ADMINS, AGENTS } from '../../auth/access';
import type { Actor } from '../../auth/principal';
import { ticketMessages, tickets, ticketStatuses, users } from '../../db/schema';
import { lockTicket } from './ticket-lock';
import { readBack, schemasOf, tenantScope, translateDbError, updateRecords, type WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { mentionsRelation, messagesResource } from './messages.resource';
import { entryBody, type EntryBody } from './entry-body';
import { plannedTicketEntry } from './planned-entry';
import { ticketsResource } from './tickets.resource';
import { ACTIVE_STATUS, addThreadEntry, movesToWaiting, reopensOnCustomerReply, WAITING_STATUS } from './thread-entry';
import { ticketChildrenRoute } from './ticket-children';
import { visibleTickets } from './ticket-visibility';
import { requireFieldsToResolve } from '../customfields/ticket-values';
import { surveyOnSolvingReply } from '../happiness/survey-send';

const s = schemasOf(messagesResource);

/**
 * `POST /v2/tickets/{id}/messages.json`: a teammate's reply (`threadType: message`) or internal
 * note, or the customer's reply (`customer`), in one transaction with the status it names. An
 * agent's reply that is no draft, to an `active` ticket, without a status, moves the ticket to
 * waiting on the customer (3); the customer's reply to a waiting or solved one makes it active (1).
 */
export const createThreadEntryRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/tickets/{id}/messages.json',
    tag: 'Tickets',
    operationId: 'createTicketMessage',
    roles: AGENTS,
    summary: 'Reply to a ticket, or add an internal note',
    description:
      "Adds a teammate's reply (`threadType: message`) or internal note to the ticket's thread, or the customer's reply taken down by a teammate (`customer`), and answers 201 with the entry; a teammate's reply that is no draft is mailed to the customer, with the satisfaction survey when it solves the ticket and the inbox asks for one. The `status` named is set in the same write; without one, a teammate's reply moves an active ticket to waiting on the customer, and the customer's reply makes a waiting or solved one active. Owners and admins may write as another teammate who works the ticket (`agent`); an agent naming another is a 403, a ticket the caller does not see a 404, and a status, mention, file or `agent` it may not use a 400 naming it. Records the entry's `created` event, and the ticket's `updated` when its status moves. See docs/resources/messages.md.",
    request: { params: idParams, body: { required: true, content: { 'application/json': { schema: entryBody } } } },
    // the platform's status 5 is solved: the customer is asked how it went
    example: {
      body: {
        message: '<p>A replacement printer is on its way: it arrives on Tuesday.</p>',
        threadType: 'message',
        status: { id: 5 },
      },
    },
    responses: {
      201: jsonResponse('the thread entry', s.one),
      403: errorResponse('a collaborator, or an agent naming another teammate as `agent`'),
      409: errorResponse('a simultaneous change got in the way; try again'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    // one batch, whose events say themselves whose drain to ask for (planned-entry.ts)
    const answer = await plannedTicketEntry(c.var.db, who, id, body).catch((error: unknown) => {
      throw translateDbError(error, messagesResource);
    });
    return c.json(answer, 201);
  },
);

/**
 * The write of `POST /v2/tickets/{id}/messages.json` in the caller's interactive transaction (a
 * message taken from mail; the API sends it as one batch, `plannedTicketEntry`): the ticket
 * locked, the entry added with its mentions, the status it names or a reply implies; answers the
 * entry as it now reads.
 */
export async function addTicketEntry(caller: WriteContext, id: number, body: EntryBody) {
  const ticket = await lockTicket(caller.tx, caller.who, id);
  // from here on the entry is its author's: its audit columns, its events and what they make (history, webhooks)
  const context = { ...caller, who: await entryAuthor(caller, id, body.agent) };
  const { tx, who } = context;
  const threadType = body.threadType ?? 'message';
  const customer = body.customer ?? undefined;
  if (customer !== undefined) {
    if (customer !== ticket.customerId)
      throw ApiError.invalid('message.customer', `customer ${customer} is not this ticket's customer`);
    if (threadType !== 'message' || body.isDraft)
      throw ApiError.invalid('message.customer', 'a customer writes replies: no notes, no drafts');
  }
  let status = body.status;
  if (status !== undefined) {
    const found = await tx
      .select({ id: ticketStatuses.id })
      .from(ticketStatuses)
      .where(and(tenantScope(ticketStatuses, who.installationId), eq(ticketStatuses.id, status)));
    if (found.length === 0) throw ApiError.invalid('message.status', `no ticketstatuses ${status} here`);
  } else if (customer !== undefined) {
    if (reopensOnCustomerReply(ticket.statusCode)) status = ACTIVE_STATUS;
  } else if (movesToWaiting(ticket.statusCode, { threadType, isDraft: body.isDraft })) status = WAITING_STATUS;
  const entryId = await addThreadEntry(context, {
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
  });
  if (body.mentions?.length) {
    const named = body.mentions.map((user) => ({ id: user }));
    await mentionsRelation.write!(tx, who, { type: 'messages', id: entryId }, named, 'message.mentions');
    await ticketsResource.relations.followers!.write!(tx, who, { type: 'tickets', id }, named, 'message.mentions');
  }
  if (status !== undefined) {
    await updateRecords(
      tx,
      who,
      { table: tickets, type: 'tickets', where: eq(tickets.id, id) },
      { statusId: status },
      { status: ticketsResource.fields.status!.output! },
    );
    if (status !== ticket.statusId) await requireFieldsToResolve(context, [id], 'message.status');
    // a teammate's reply that solves the ticket carries the satisfaction survey, where the inbox asks for it
    if (status !== ticket.statusId && threadType === 'message' && !body.isDraft && customer === undefined)
      await surveyOnSolvingReply(context, id, entryId);
  }
  return readBack(tx, messagesResource, who, entryId, []);
}

/**
 * Who an entry is written as (`agent`): the caller, or the teammate an owner or admin names. That
 * teammate must be an active owner, admin or agent of the installation (a collaborator writes no
 * entries) who sees the ticket, else a 400 naming `agent`; an agent names only itself (403). The
 * answer keeps the caller's rights (role, credential) under the teammate's name: what the write
 * may do is the caller's to decide, whose it is the teammate's.
 */
async function entryAuthor(
  { tx, who }: WriteContext,
  ticketId: number,
  agent: number | null | undefined,
): Promise<Actor> {
  if (agent === undefined || agent === null || agent === who.userId) return who;
  if (who.kind !== 'teammate' || !ADMINS.includes(who.role))
    throw ApiError.forbidden(
      'an agent writes replies and notes as itself: only owners and admins name another teammate as `agent`',
    );
  const [teammate] = await tx
    .select({ role: users.role })
    .from(users)
    .where(and(tenantScope(users, who.installationId), eq(users.id, agent)));
  if (!teammate) throw ApiError.invalid('message.agent', `no active teammate ${agent} here`);
  if (teammate.role === 'collaborator')
    throw ApiError.invalid('message.agent', 'a collaborator writes no replies or notes: name an owner, admin or agent');
  const sight = visibleTickets({ ...who, userId: agent, role: teammate.role });
  if (sight) {
    const seen = await tx
      .select({ id: tickets.id })
      .from(tickets)
      .where(and(eq(tickets.id, ticketId), sight));
    if (seen.length === 0)
      throw ApiError.invalid(
        'message.agent',
        `teammate ${agent} does not work this ticket (not a member of its inbox, or restricted to their own tickets)`,
      );
  }
  return { ...who, userId: agent };
}

/** `GET /v2/tickets/{id}/messages.json`: the thread in pages (a ticket of thousands of entries reads page by page). */
export const threadRoute = ticketChildrenRoute(messagesResource, ticketMessages.ticketId, {
  path: 'messages.json',
  operationId: 'listTicketMessages',
  summary: "A ticket's thread, paginated",
  description:
    "The ticket's thread entries (replies, the customer's messages, internal notes) in pages apart from the ticket, with the list's `filter`, `orderBy` and `includes`; by default in the order they were written, so a merged thread reads in time order. A ticket the caller does not see, of another installation or deleted, is a 404. See docs/resources/messages.md.",
});
