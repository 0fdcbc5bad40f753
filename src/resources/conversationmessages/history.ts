import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { systemActor } from '../../auth/principal';
import { conversationMessages } from '../../db/schema';
import { listBody, schemasOf } from '../../engine';
import { textParam } from '../../http/params';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { conversationByToken } from '../conversations/conversation-by-token';
import { conversationMessagesResource } from './conversationmessages.resource';

const s = schemasOf(conversationMessagesResource);

/**
 * `GET /v2/conversationmessages/history/{token}.json`: public, the token in the path is the
 * credential. The messages of that one conversation, with the list's filter, order, paging and
 * includes.
 */
export const historyRoute = defineRoute({
  method: 'get', path: '/v2/conversationmessages/history/{token}.json', tag: 'ConversationMessages', operationId: 'getConversationHistory', public: true,
  summary: "A conversation's messages, by its token (public: the token is the credential)",
  request: { params: z.object({ token: textParam("the conversation's token: 24 digits") }), query: s.listQuery },
  responses: { 200: jsonResponse('a page of the messages', s.many), 404: errorResponse('no conversation has this token') },
}, async (c) => {
  const conversation = await conversationByToken(c.var.db, c.req.valid('param').token);
  // Reads as the installation sees its own records, narrowed to the one conversation.
  const reader = systemActor(conversation.installationId, 'widget');
  return c.json(await listBody(c, conversationMessagesResource, reader, c.req.valid('query'), eq(conversationMessages.conversationId, conversation.id)), 200);
});
