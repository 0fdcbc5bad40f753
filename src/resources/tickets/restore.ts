import { eq } from 'drizzle-orm';
import { AGENTS } from '../../auth/access';
import { tickets } from '../../db/schema';
import { readBack, schemasOf, translateDbError, updateRecords } from '../../engine';
import { noteEvents } from '../../events/record-events';
import { idParams } from '../../http/params';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { lockTicket } from './ticket-lock';
import { ticketsResource } from './tickets.resource';

const s = schemasOf(ticketsResource);

/**
 * `POST /v2/tickets/{id}/restore.json`: a deleted ticket live again, as it was (an `updated`
 * event of its `state`, the history's `ticket.restored`). A live ticket is answered as it is.
 */
export const restoreTicketRoute = defineRoute({
  method: 'post', path: '/v2/tickets/{id}/restore.json', tag: 'Tickets', operationId: 'restoreTicket', roles: AGENTS,
  summary: 'Restore a deleted ticket',
  request: { params: idParams },
  responses: { 200: jsonResponse('the ticket, live', s.one) },
}, async (c) => {
  const who = c.var.principal;
  const { id } = c.req.valid('param');
  const body = await c.var.db
    .transaction(async (tx) => {
      const ticket = await lockTicket(tx, who, id, true);
      if (ticket.state === 'deleted') {
        await updateRecords(tx, who, { table: tickets, type: 'tickets', where: eq(tickets.id, id) }, { state: 'active', deletedAt: null, deletedBy: null }, { state: tickets.state });
      }
      return readBack(tx, ticketsResource, who, id, []);
    })
    .catch((error: unknown) => {
      throw translateDbError(error, ticketsResource);
    });
  noteEvents(c.var.db, who.installationId, [['tickets', 'updated', ['state']]]);
  return c.json(body, 200);
});
