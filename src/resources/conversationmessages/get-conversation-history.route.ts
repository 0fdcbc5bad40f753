import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { systemActor } from '../../auth/principal';
import { conversationMessages } from '../../db/schema';
import { listBody, schemasOf } from '../../engine';
import { textParam } from '../../http/params';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { conversationByToken } from '../conversations/conversation-by-token';
import { conversationHistoryView } from './history-view';

const s = schemasOf(conversationHistoryView);

/**
 * `GET /v2/conversationmessages/history/{token}.json`: public, the token in the path is the
 * credential. The live messages of that one conversation, with the list's paging and order, and a
 * filter over what the room shows (`history-view.ts`): no includes, no state, no audit names.
 */
export const getConversationHistoryRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/conversationmessages/history/{token}.json',
    tag: 'ConversationMessages',
    operationId: 'getConversationHistory',
    public: true,
    summary: "A conversation's messages, by its token (public: the token is the credential)",
    description:
      "The live messages of the one conversation whose token is in the path, in pages with the list's paging and order: each message's text, author, contact, user and time, and nothing the installation keeps beside them (no AI draft, no related records). `filter` takes only `id`, `message`, `contactId`, `userId` and `sentAt`, and `includes` names nothing; asking for more is a 400 naming the parameter. A token of the wrong form, or one no live conversation has, is a 404. See docs/realtime.md.",
    request: { params: z.object({ token: textParam("the conversation's token: 24 digits") }), query: s.listQuery },
    responses: {
      200: jsonResponse('a page of the messages', s.many),
      404: errorResponse('no conversation has this token'),
    },
  },
  async (c) => {
    const conversation = await conversationByToken(c.var.db, c.req.valid('param').token);
    // Reads as the installation sees its own records, narrowed to the one conversation.
    const reader = systemActor(conversation.installationId, 'widget');
    return c.json(
      await listBody(
        c,
        conversationHistoryView,
        reader,
        c.req.valid('query'),
        eq(conversationMessages.conversationId, conversation.id),
      ),
      200,
    );
  },
);
