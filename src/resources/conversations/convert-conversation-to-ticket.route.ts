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
export const convertConversationToTicketRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/conversations/{id}/ticket.json',
    tag: 'Conversations',
    operationId: 'convertConversationToTicket',
    roles: AGENTS,
    summary: 'Make a ticket of a conversation: its transcript becomes the thread',
    description:
      "Makes a ticket of the conversation, as a ticket's create makes one (its subject, else \"Chat with <name>\"; its inbox, else the installation's first; the contact's customer, else the customer of the contact's email, made if there is none), with the transcript as its thread, and answers 201 with the ticket; the conversation's `ticket_id` then names it. A conversation that is a ticket already, whose contact left no email, whose visitor has not proven a customer's address, with no inbox to go to, or whose transcript changed while it was made, is a 409 and nothing is written. An agent cannot make a ticket in an inbox they do not work (403). See docs/realtime.md.",
    request: { params: idParams },
    responses: {
      201: jsonResponse('the new ticket', s.one),
      409: errorResponse('the conversation is a ticket already, or cannot be one (no customer to answer, no inbox)'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    const body =
      (await plannedConversationTicket(c.var.db, c.env, who, id)) ??
      (await c.var.db
        .transaction(async (tx) =>
          readBack(tx, ticketsResource, who, await conversationToTicket({ tx, who, env: c.env }, id), ['messages']),
        )
        .catch((error: unknown) => {
          throw error instanceof NotConvertible ? ApiError.conflict('id', error.message) : error;
        }));
    return c.json(body as z.infer<typeof s.one>, 201);
  },
);
