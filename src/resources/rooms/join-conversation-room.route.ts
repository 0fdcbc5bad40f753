import { sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app-env';
import { AGENTS, requireRole, requireScope } from '../../auth/access';
import { requireTeammate } from '../../auth/authenticate';
import { ApiError } from '../../http/errors';
import { textParam } from '../../http/params';
import { errorResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { ROOM_HEADERS, type Participant } from '../../realtime/room-protocol';
import type { RoomConversation } from '../../realtime/room-store';
import { conversationByToken } from '../conversations/conversation-by-token';

/** The teammate joining with a credential, or else the conversation's contact (the token is theirs). */
async function participantOf(
  c: Context<AppEnv>,
  contactId: number | null,
  installationId: number,
): Promise<Participant> {
  if (c.req.header('authorization')) {
    const principal = await requireTeammate(c);
    // Another installation's teammate learns nothing of this conversation, not even its role's refusal.
    if (principal.installationId !== installationId) throw ApiError.notFound('token', 'no conversation has this token');
    requireRole(principal, AGENTS);
    // the socket's GET opens a room the agent then writes messages in
    requireScope(principal, 'POST');
    const user = await c.var.db.http.execute(
      sql`SELECT trim(first_name || ' ' || last_name) AS name FROM users WHERE id = ${principal.userId}`,
    );
    return { role: 'agent', id: principal.userId, name: (user.rows[0]?.name as string) ?? '' };
  }
  if (contactId === null) throw ApiError.forbidden('this conversation has no contact to join as');
  const contact = await c.var.db.http.execute(sql`SELECT name FROM contacts WHERE id = ${contactId}`);
  return { role: 'contact', id: contactId, name: (contact.rows[0]?.name as string) ?? '' };
}

/**
 * `GET /v2/rooms/{token}/socket`: joins a conversation's room over a WebSocket. The token is the
 * contact's credential; an agent also sends its API key (`Authorization`) and joins as itself.
 */
export const joinConversationRoomRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/rooms/{token}/socket',
    tag: 'Conversations',
    operationId: 'joinConversationRoom',
    public: true,
    summary:
      "Join a conversation's realtime room (WebSocket): the token is the contact's credential; agents add their API key",
    description: 'The protocol of the frames is in docs/realtime.md.',
    // The contact needs nothing but the token in the path; an agent joins with its credential.
    security: [{}, { bearer: [] }, { basic: [] }],
    request: { params: z.object({ token: textParam("the conversation's token") }) },
    responses: {
      101: { description: 'switching to the WebSocket protocol' },
      401: errorResponse('an agent credential that is not valid'),
      403: errorResponse('the role may not, or the conversation has no contact to join as'),
      404: errorResponse('no conversation has this token'),
      426: errorResponse('not a WebSocket upgrade'),
    },
  },
  async (c) => {
    const { token } = c.req.valid('param');
    const conversation = await conversationByToken(c.var.db, token);
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
      throw new ApiError(426, [{ code: 'upgradeRequired', detail: 'connect with a WebSocket (Upgrade: websocket)' }], {
        Upgrade: 'websocket',
      });
    }
    const participant = await participantOf(c, conversation.contactId, conversation.installationId);
    const room: RoomConversation = {
      token,
      conversationId: conversation.id,
      installationId: conversation.installationId,
      status: conversation.status,
      assistant: conversation.assistantWaitSeconds === null ? null : { waitSeconds: conversation.assistantWaitSeconds },
    };
    const stub = c.env.CONVERSATION_ROOMS.get(c.env.CONVERSATION_ROOMS.idFromName(token));
    const headers = new Headers(c.req.raw.headers);
    headers.set(ROOM_HEADERS.conversation, JSON.stringify(room));
    headers.set(ROOM_HEADERS.participant, JSON.stringify(participant));
    return stub.fetch(new Request('https://room/connect', { headers })) as unknown as Response;
  },
);
