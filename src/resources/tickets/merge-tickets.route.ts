import { and, inArray, sql, type SQL } from 'drizzle-orm';
import type { Actor } from '../../auth/principal';
import { z } from 'zod';
import { AGENTS } from '../../auth/access';
import { ticketMessages, tickets } from '../../db/schema';
import {
  referenceInput,
  schemasOf,
  sendWithReadBack,
  tenantScope,
  translateDbError,
  updateStatement,
} from '../../engine';
import { recordEventsStatement } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { bodyObject } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { messageFields } from './message-shape';
import { requireStatusOfCode, statusIdOfCode } from './status-of-code';
import { refreshPreviewsStatements } from './thread-entry';
import { visibleTickets } from './ticket-visibility';
import { ticketsResource } from './tickets.resource';

const s = schemasOf(ticketsResource);

const mergeBody = bodyObject({
  tickets: z
    .array(referenceInput('tickets'))
    .min(1)
    .max(50)
    .meta({ description: 'the tickets to fold into this one, 1 to 50' }),
}).meta({ id: 'TicketMerge' });

/**
 * `POST /v2/tickets/{id}/merge.json` with `{"tickets": [{"id": 8}, ...]}`: each ticket named is
 * folded into this one in one batch (one round trip). Its thread entries move here (the thread reads in the
 * time they were written), and it closes as merged: status closed, `mergedInto` this ticket, one
 * `ticket.mergedinto` line of its history; this ticket gets one `ticket.merged` line for each.
 */
export const mergeTicketsRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/tickets/{id}/merge.json',
    tag: 'Tickets',
    operationId: 'mergeTickets',
    roles: AGENTS,
    summary: 'Fold other tickets into this one',
    description:
      'Folds the tickets named (1 to 50) into this one, in one transaction: their thread entries, notes and drafts too, move here and the thread reads in the time they were written; each folded ticket closes as merged (status closed, `mergedInto` this ticket) and keeps its tags, followers, custom field values and cc. Each change records its events, so the folded tickets get a `ticket.mergedinto` line and this one a `ticket.merged` line for each. Naming this ticket itself, one the caller may not change or one already merged is a 400 naming `tickets[i]`, and nothing changes; a ticket the caller may not change in the path is a 404, and merging into a merged ticket a 409. See docs/resources/tickets.md.',
    request: { params: idParams, body: { required: true, content: { 'application/json': { schema: mergeBody } } } },
    example: { params: { id: 1 }, body: { tickets: [{ id: 2 }] } },
    responses: {
      200: jsonResponse('the ticket kept', s.one),
      409: errorResponse('this ticket is itself merged, or a simultaneous change got in the way'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    const folded = [...new Set(c.req.valid('json').tickets)];
    if (folded.includes(id))
      throw ApiError.invalid(
        `tickets[${c.req.valid('json').tickets.indexOf(id)}]`,
        'a ticket is not merged into itself',
      );
    // one batch: the tickets locked in id order, each checked, the threads moved, the folded closed, read back
    const body = await sendWithReadBack(
      c.var.db,
      ticketsResource,
      who,
      [
        ...mergeChecks(who, id, folded),
        requireStatusOfCode(who, 'closed'),
        updateStatement(
          c.var.db.http,
          who,
          { table: ticketMessages, type: 'messages', where: inArray(ticketMessages.ticketId, folded) },
          { ticketId: id },
          { ticket: messageFields.ticket!.output! },
        ),
        updateStatement(
          c.var.db.http,
          who,
          { table: tickets, type: 'tickets', where: inArray(tickets.id, folded) },
          { statusId: statusIdOfCode(who, 'closed'), mergedIntoId: id },
          { status: ticketsResource.fields.status!.output!, mergedInto: ticketsResource.fields.mergedInto!.output! },
        ),
        recordEventsStatement(
          who,
          folded.map((other) => ({
            recordType: 'tickets',
            recordId: id,
            kind: 'merged',
            data: { ticket: { id: other, type: 'tickets' } },
          })),
        ),
        ...refreshPreviewsStatements([id, ...folded]),
      ],
      sql`${id}::int`,
      [],
    ).catch((error: unknown) => {
      throw translateDbError(error, ticketsResource);
    });
    return c.json(body!, 200);
  },
);

/**
 * The tickets locked in id order (so two writes over the same tickets never deadlock), then the
 * rules: the kept one the caller's (404) and not merged itself (409); each folded one the caller's
 * to change and not merged already (400 naming it, the first in the body's order).
 */
function mergeChecks(who: Actor, id: number, folded: number[]): SQL[] {
  const writable = and(tenantScope(tickets, who.installationId, false, 'write'), visibleTickets(who))!;
  const list = JSON.stringify(folded.map((ticket, n) => ({ ticket, n })));
  return [
    sql`SELECT count(*) FROM (SELECT ${tickets.id} FROM ${tickets} WHERE ${writable} AND ${inArray(tickets.id, [id, ...folded])} ORDER BY ${tickets.id} FOR UPDATE) locked`,
    sql`SELECT CASE WHEN k.id IS NULL THEN desk_refuse(404, 'id', ${`ticket ${id} not found`}::text)
        ELSE desk_refuse(409, 'id', format('ticket %s is merged into ticket %s: merge into that one', k.id, k.merged_into_id)) END
      FROM (SELECT 1) one LEFT JOIN (SELECT ${tickets.id} AS id, ${tickets.mergedIntoId} AS merged_into_id FROM ${tickets} WHERE ${writable} AND ${tickets.id} = ${id}) k ON true
     WHERE k.id IS NULL OR k.merged_into_id IS NOT NULL`,
    sql`SELECT desk_refuse(400, 'tickets[' || x.n || ']', CASE WHEN x.id IS NULL THEN format('no ticket %s you may change', x.ticket)
        ELSE format('ticket %s is already merged into ticket %s', x.ticket, x.merged_into_id) END)
      FROM (SELECT x.ticket, x.n, f.id, f.merged_into_id FROM jsonb_to_recordset(${list}::jsonb) AS x(ticket int, n int)
              LEFT JOIN (SELECT ${tickets.id} AS id, ${tickets.mergedIntoId} AS merged_into_id FROM ${tickets} WHERE ${writable}) f ON f.id = x.ticket
             WHERE f.id IS NULL OR f.merged_into_id IS NOT NULL ORDER BY x.n LIMIT 1) x`,
  ];
}
