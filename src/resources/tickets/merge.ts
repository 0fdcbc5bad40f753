import { inArray } from 'drizzle-orm';
import { z } from 'zod';
import { AGENTS } from '../../auth/access';
import { ticketMessages, tickets } from '../../db/schema';
import { readBack, referenceInput, schemasOf, translateDbError, updateRecords } from '../../engine';
import { noteEvents, recordEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { bodyObject } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { messageFields } from './message-shape';
import { statusOfCode } from './status-of-code';
import { refreshPreviews } from './thread-entry';
import { lockTickets } from './ticket-lock';
import { ticketsResource } from './tickets.resource';

const s = schemasOf(ticketsResource);

const mergeBody = bodyObject({
  tickets: z.array(referenceInput('tickets')).min(1).max(50).meta({ description: 'the tickets to fold into this one, 1 to 50' }),
}).meta({ id: 'TicketMerge' });

/**
 * `POST /v2/tickets/{id}/merge.json` with `{"tickets": [{"id": 8}, ...]}`: each ticket named is
 * folded into this one in one transaction. Its thread entries move here (the thread reads in the
 * time they were written), and it closes as merged: status closed, `mergedInto` this ticket, one
 * `ticket.mergedinto` line of its history; this ticket gets one `ticket.merged` line for each.
 */
export const mergeTicketsRoute = defineRoute({
  method: 'post', path: '/v2/tickets/{id}/merge.json', tag: 'Tickets', operationId: 'mergeTickets', roles: AGENTS,
  summary: 'Fold other tickets into this one',
  request: { params: idParams, body: { required: true, content: { 'application/json': { schema: mergeBody } } } },
  responses: { 200: jsonResponse('the ticket kept', s.one), 409: errorResponse('this ticket is itself merged, or a simultaneous change got in the way') },
}, async (c) => {
  const who = c.var.principal;
  const { id } = c.req.valid('param');
  const folded = [...new Set(c.req.valid('json').tickets)];
  if (folded.includes(id)) throw ApiError.invalid(`tickets[${c.req.valid('json').tickets.indexOf(id)}]`, 'a ticket is not merged into itself');
  const body = await c.var.db
    .transaction(async (tx) => {
      const context = { tx, who, env: c.env };
      const locked = new Map((await lockTickets(tx, who, [id, ...folded])).map((ticket) => [ticket.id, ticket]));
      const kept = locked.get(id);
      if (!kept) throw ApiError.notFound('id', `ticket ${id} not found`);
      if (kept.mergedIntoId !== null) throw ApiError.conflict('id', `ticket ${id} is merged into ticket ${kept.mergedIntoId}: merge into that one`);
      folded.forEach((other, index) => {
        const ticket = locked.get(other);
        if (!ticket) throw ApiError.invalid(`tickets[${index}]`, `no ticket ${other} you may change`);
        if (ticket.mergedIntoId !== null) throw ApiError.invalid(`tickets[${index}]`, `ticket ${other} is already merged into ticket ${ticket.mergedIntoId}`);
      });
      await updateRecords(tx, who, { table: ticketMessages, type: 'messages', where: inArray(ticketMessages.ticketId, folded) }, { ticketId: id }, { ticket: messageFields.ticket!.output! });
      await updateRecords(
        tx, who, { table: tickets, type: 'tickets', where: inArray(tickets.id, folded) },
        { statusId: await statusOfCode(context, 'closed'), mergedIntoId: id },
        { status: ticketsResource.fields.status!.output!, mergedInto: ticketsResource.fields.mergedInto!.output! },
      );
      await recordEvents(tx, who, folded.map((other) => ({ recordType: 'tickets', recordId: id, kind: 'merged', data: { ticket: { id: other, type: 'tickets' } } })));
      await refreshPreviews(context, [id, ...folded]);
      return readBack(tx, ticketsResource, who, id, []);
    })
    .catch((error: unknown) => {
      throw translateDbError(error, ticketsResource);
    });
  noteEvents(c.var.db, who.installationId, [['tickets'], ['messages', 'updated']]);
  return c.json(body, 200);
});
