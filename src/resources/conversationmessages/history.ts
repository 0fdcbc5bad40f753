import { eq } from 'drizzle-orm';
import type { Context, Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import type { Principal } from '../../auth/principal';
import { conversationMessages } from '../../db/schema';
import { addRoute, rawPathParam } from '../../http/route';
import { errorBodySchema } from '../../openapi/schemas';
import { conversationByToken } from '../conversations/conversation-by-token';
import { listBody } from '../engine/read';
import { conversationMessagesResource } from './conversationmessages.resource';

/**
 * `GET /v2/conversationmessages/history/{token}.json`: public, the token in the path is the
 * credential. The messages of that one conversation, with the list's filter, order, paging and
 * includes.
 */
async function history(c: Context<AppEnv>) {
  const conversation = await conversationByToken(c.var.db, rawPathParam(c, 'token'));
  // Reads as the installation sees its own records, narrowed to the one conversation.
  const who: Principal = { installationId: conversation.installationId, userId: 0, role: 'collaborator' };
  return c.json(await listBody(c, conversationMessagesResource, who, eq(conversationMessages.conversationId, conversation.id)));
}

export function historyRoute(app: Hono<AppEnv>): void {
  addRoute(app, {
    method: 'get',
    path: '/v2/conversationmessages/history/{token}.json',
    tag: 'conversationmessages',
    public: true,
    summary: 'A conversation\'s messages, by its token (public: the token is the credential)',
    query: [
      { name: 'filter', description: `JSON filter over: ${conversationMessagesResource.filter.join(', ')}`, schema: { type: 'string' } },
      { name: 'orderBy', description: 'one of the filter names', schema: { type: 'string' } },
      { name: 'orderMode', description: 'asc or desc', schema: { type: 'string', enum: ['asc', 'desc'] } },
      { name: 'page', description: 'from 1', schema: { type: 'integer', minimum: 1 } },
      { name: 'pageSize', description: '1 to 100', schema: { type: 'integer', minimum: 1, maximum: 100 } },
      { name: 'includes', description: 'contacts, customers, files, users, all', schema: { type: 'string' } },
    ],
    responses: {
      200: { description: 'ConversationMessagesAPIBody' },
      ...Object.fromEntries([400, 404].map((status) => [status, { description: 'error', schema: errorBodySchema }])),
    },
  }, history);
}
