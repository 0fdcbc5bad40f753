import { sql } from 'drizzle-orm';
import { AGENTS } from '../../auth/access';
import { refuseWhen } from '../../db/refusal';
import { ticketTasks } from '../../db/schema';
import { withEvents } from '../../events/record-events';
import { errorResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { PATH, RETURNING, linkEvent, liveLink, params } from './task-links';
import { lockTicketStatement } from './ticket-lock';

/**
 * `DELETE /v2/tickets/{id}/tasks/{taskId}.json`: the link gone (the product is not asked: the
 * task there stays as it is). A task not linked to the ticket is a 404 naming `taskId`.
 */
export const unlinkTicketTaskRoute = defineRoute(
  {
    method: 'delete',
    path: PATH,
    tag: 'Tickets',
    operationId: 'unlinkTicketTask',
    roles: AGENTS,
    summary: 'Unlink a project-management task from a ticket',
    description:
      "Removes the link between the ticket and the task, with the ticket's `unlinked` event (history `ticket.task.removed`); the product is not asked and its task stays as it is. A task not linked to the ticket (a repeated unlink too) is a 404 naming `taskId`, and a ticket the caller may not change a 404 naming `id`. See docs/resources/tickets.md.",
    request: { params },
    example: { params: { taskId: 4711 } },
    responses: {
      204: { description: 'unlinked' },
      404: errorResponse('no such ticket for the caller, or the task is not linked to it (source taskId)'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { id, taskId } = c.req.valid('param');
    const unlink = sql`UPDATE ${ticketTasks} SET state = 'deleted', deleted_at = now(), deleted_by = ${who.userId}, updated_at = now(), updated_by = ${who.userId}
    WHERE ${liveLink(id, taskId)} ${RETURNING}`;
    await c.var.db.batch([
      lockTicketStatement(who, id),
      refuseWhen(
        sql`NOT EXISTS (SELECT 1 FROM ${ticketTasks} WHERE ${liveLink(id, taskId)})`,
        404,
        'taskId',
        `task ${taskId} is not linked to ticket ${id}`,
      ),
      withEvents(unlink, who, 'tickets', 'unlinked', linkEvent, sql`r.ticket_id`),
    ]);
    return c.body(null, 204);
  },
);
