import { AGENTS } from '../../auth/access';
import { schemasOf, translateDbError } from '../../engine';
import { idParams } from '../../http/params';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { entryBody } from './entry-body';
import { messagesResource } from './messages.resource';
import { plannedTicketEntry } from './planned-entry';

const s = schemasOf(messagesResource);

/**
 * `POST /v2/tickets/{id}/messages.json`: a teammate's reply (`threadType: message`) or internal
 * note, or the customer's reply (`customer`), in one transaction with the status it names. An
 * agent's reply that is no draft, to an `active` ticket, without a status, moves the ticket to
 * waiting on the customer (3); the customer's reply to a waiting or solved one makes it active (1).
 */
export const createTicketMessageRoute = defineRoute(
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
