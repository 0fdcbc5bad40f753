import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { AGENTS } from '../../auth/access';
import { conversations } from '../../db/schema';
import { readBack, recordScope, schemasOf } from '../../engine';
import { noteEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { ticketsResource } from '../tickets/tickets.resource';
import { conversationsResource } from './conversations.resource';
import { conversationToTicket, NotConvertible } from './to-ticket';

const s = schemasOf(ticketsResource);

/** `POST /v2/conversations/{id}/ticket.json`: the conversation as a ticket, on demand (409 when it is one already). */
export const conversationToTicketRoute = defineRoute({
  method: 'post', path: '/v2/conversations/{id}/ticket.json', tag: 'Conversations', operationId: 'convertConversationToTicket', roles: AGENTS,
  summary: 'Make a ticket of a conversation: its transcript becomes the thread',
  request: { params: idParams },
  responses: { 201: jsonResponse('the new ticket', s.one), 409: errorResponse('the conversation is a ticket already, or cannot be one (no customer to answer, no inbox)') },
}, async (c) => {
  const who = c.var.principal;
  const { id } = c.req.valid('param');
  const body = await c.var.db
    .transaction(async (tx) => {
      const context = { tx, who, env: c.env };
      const [seen] = await tx.select({ id: conversations.id }).from(conversations).where(and(recordScope(conversationsResource, who), eq(conversations.id, id)));
      if (!seen) throw ApiError.notFound('id', `conversation ${id} not found`);
      return readBack(tx, ticketsResource, who, await conversationToTicket(context, id), ['messages']);
    })
    .catch((error: unknown) => {
      throw error instanceof NotConvertible ? ApiError.conflict('id', error.message) : error;
    });
  noteEvents(c.var.db, who.installationId, [['tickets', 'created'], ['messages', 'created'], ['conversations', 'updated', ['ticket_id']]]);
  return c.json(body as z.infer<typeof s.one>, 201);
});

