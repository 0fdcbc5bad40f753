import { sql, type SQL } from 'drizzle-orm';
import { AGENTS } from '../../auth/access';
import { ticketTasks } from '../../db/schema';
import { schemasOf, sendWithReadBack } from '../../engine';
import { withEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { PM_SYNC_BUDGET_MS, PmClient } from '../companies/pm-client';
import { pmConnectionRead, pmSettingsOf } from '../companies/pm-connection';

import { PATH, RETURNING, linkEvent, liveLink, params } from './task-links';
import { lockTicketStatement } from './ticket-lock';
import { ticketsResource } from './tickets.resource';

const s = schemasOf(ticketsResource);

const failures = {
  409: errorResponse(
    'no project-management connection is configured, its token cannot be read, or its address is refused',
  ),
  502: errorResponse('the project-management product failed, refused the token or answered a redirect'),
  503: errorResponse('the server cannot handle project-management tokens (PM_TOKEN_KEY)'),
  504: errorResponse('the project-management product did not answer in time'),
};

/**
 * `POST /v2/tickets/{id}/tasks/{taskId}.json`: links the project-management task to the ticket,
 * once the product (through the installation's connection, as company sync calls it) says the
 * task is there; its name and address are kept with the link. A task linked already is answered
 * as it is, without asking the product. Who may: who may update the ticket.
 */
export const linkTicketTaskRoute = defineRoute(
  {
    method: 'post',
    path: PATH,
    tag: 'Tickets',
    operationId: 'linkTicketTask',
    roles: AGENTS,
    summary: 'Link a project-management task to a ticket',
    description:
      "Links a task of the project-management product to the ticket once the product, asked through the installation's connection, says it is there; the link keeps the task's name and address, records the ticket's `linked` event (history `ticket.task.added`), and the ticket is answered with `included.tasks`. A task linked already is answered as it is, without asking the product. A ticket the caller may not change is a 404 naming `id` (nothing asked), a task the product does not have a 404 naming `taskId`; no usable connection is a 409, the product failing a 502 and not answering within 5 seconds a 504. See docs/resources/tickets.md.",
    request: { params },
    example: { params: { taskId: 4711 } },
    responses: {
      200: jsonResponse('the ticket, its tasks included', s.one),
      404: errorResponse('no such ticket for the caller, or the product has no such task (source taskId)'),
      ...failures,
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { id, taskId } = c.req.valid('param');
    const db = c.var.db;
    // The ticket first (a 404 asks nothing of the product), and no call for a link already there.
    const [, read, connectionRows] = await db.batch([
      lockTicketStatement(who, id),
      sql`SELECT EXISTS (SELECT 1 FROM ${ticketTasks} WHERE ${liveLink(id, taskId)}) AS linked`,
      pmConnectionRead(who.installationId),
    ]);
    const statements: SQL[] = [];
    if (read?.[0]?.linked !== true) {
      const settings = await pmSettingsOf(
        c.env,
        who.installationId,
        connectionRows?.[0] as { baseUrl: string; tokenCiphertext: string } | undefined,
      );
      const task = await new PmClient(
        settings.baseUrl,
        settings.token,
        AbortSignal.timeout(PM_SYNC_BUDGET_MS),
      ).taskById(taskId);
      if (!task) throw ApiError.notFound('taskId', `the project-management product has no task ${taskId}`);
      // Locked again: the ticket may have gone while the product answered; a link made meanwhile is kept.
      const insert = sql`INSERT INTO ${ticketTasks} (installation_id, ticket_id, task_id, name, url, created_by, updated_by)
      VALUES (${who.installationId}, ${id}, ${taskId}, ${task.name}, ${task.url}, ${who.userId}, ${who.userId})
      ON CONFLICT (ticket_id, task_id) WHERE state = 'active' DO NOTHING ${RETURNING}`;
      statements.push(
        lockTicketStatement(who, id),
        withEvents(insert, who, 'tickets', 'linked', linkEvent, sql`r.ticket_id`),
      );
    }
    const body = await sendWithReadBack(db, ticketsResource, who, statements, sql`${id}::int`, ['tasks']);
    if (!body) throw ApiError.notFound('id', `ticket ${id} not found`);
    return c.json(body, 200);
  },
);
