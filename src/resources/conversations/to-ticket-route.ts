import type { z } from 'zod';
import { AGENTS } from '../../auth/access';
import { readBack, schemasOf } from '../../engine';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { ticketsResource } from '../tickets/tickets.resource';
import { conversationToTicket, NotConvertible, plannedConversationTicket } from './to-ticket';

const s = schemasOf(ticketsResource);

/**
 * `POST /v2/conversations/{id}/ticket.json`: the conversation as a ticket, on demand (409 when it
 * is one already): a read and one batch (`plannedConversationTicket`), or the interactive write
 * where the ticket's create needs it.
 */
export const conversationToTicketRoute = defineRoute({
  method: 'post', path: '/v2/conversations/{id}/ticket.json', tag: 'Conversations', operationId: 'convertConversationToTicket', roles: AGENTS,
  summary: 'Make a ticket of a conversation: its transcript becomes the thread',
  request: { params: idParams },
  responses: { 201: jsonResponse('the new ticket', s.one), 409: errorResponse('the conversation is a ticket already, or cannot be one (no customer to answer, no inbox)') },
}, async (c) => {
  const who = c.var.principal;
  const { id } = c.req.valid('param');
  const body =
    (await plannedConversationTicket(c.var.db, c.env, who, id)) ??
    (await c.var.db
      .transaction(async (tx) => readBack(tx, ticketsResource, who, await conversationToTicket({ tx, who, env: c.env }, id), ['messages']))
      .catch((error: unknown) => {
        throw error instanceof NotConvertible ? ApiError.conflict('id', error.message) : error;
      }));
  return c.json(body as z.infer<typeof s.one>, 201);
});
