import { and, eq, sql } from 'drizzle-orm';
import { AGENTS } from '../../auth/access';
import { tickets } from '../../db/schema';
import { schemasOf, sendWithReadBack, translateDbError, updateStatement } from '../../engine';
import { idParams } from '../../http/params';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { lockTicketStatement } from './ticket-lock';
import { ticketsResource } from './tickets.resource';

const s = schemasOf(ticketsResource);

/**
 * `POST /v2/tickets/{id}/restore.json`: a deleted ticket live again, as it was (an `updated`
 * event of its `state`, the history's `ticket.restored`). A live ticket is answered as it is.
 */
export const restoreTicketRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/tickets/{id}/restore.json',
    tag: 'Tickets',
    operationId: 'restoreTicket',
    roles: AGENTS,
    summary: 'Restore a deleted ticket',
    description:
      "Brings a deleted ticket back as it was, with an `updated` event of its `state` (the history's `ticket.restored`), and answers it; a live ticket is answered as it is. A ticket the caller may not change, of another installation or not there is a 404. See docs/resources/tickets.md.",
    request: { params: idParams },
    responses: { 200: jsonResponse('the ticket, live', s.one) },
  },
  async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    // one batch: the ticket locked (deleted ones too), made live where it is deleted, read back
    const body = await sendWithReadBack(
      c.var.db,
      ticketsResource,
      who,
      [
        lockTicketStatement(who, id, true),
        updateStatement(
          c.var.db.http,
          who,
          { table: tickets, type: 'tickets', where: and(eq(tickets.id, id), eq(tickets.state, 'deleted'))! },
          { state: 'active', deletedAt: null, deletedBy: null },
          { state: tickets.state },
        ),
      ],
      sql`${id}::int`,
      [],
    ).catch((error: unknown) => {
      throw translateDbError(error, ticketsResource);
    });
    return c.json(body!, 200);
  },
);
