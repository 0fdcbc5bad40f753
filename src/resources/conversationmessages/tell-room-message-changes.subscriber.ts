import { sql } from 'drizzle-orm';
import type { Subscriber } from '../../events/subscriber';
import { isRoomMessageId, type MessageChange } from '../../realtime/room-protocol';
import { tellRoom } from '../conversations/tell-room';

/**
 * Tells a conversation's room that one of its messages was edited or deleted through the API
 * (one record or in bulk: each writes its event), so the room's copy, which its welcome replays
 * to whoever joins with the token, is what Postgres holds, and everyone in the room sees the
 * change. The room is told the message as it stands when the event is handled, with the event's
 * id: a telling repeated, or older than one applied, changes nothing.
 */
export const tellRoomMessageChanges: Subscriber = {
  name: 'conversationmessages.tellRoom',
  does: "tells the message's room its text as Postgres holds it (or that it was deleted) with the event id; the room changes its copy and tells everyone there (docs/realtime.md), once per message and event",
  on: [
    { recordType: 'conversationmessages', kinds: ['updated'], changed: ['message'] },
    { recordType: 'conversationmessages', kinds: ['deleted'] },
  ],
  async handle(event, { tx, env, signal }) {
    const { rows } = await tx.execute(sql`
      SELECT m.client_id, m.message, m.state = 'deleted' AS deleted, c.token
      FROM conversation_messages m JOIN conversations c ON c.id = m.conversation_id
      WHERE m.id = ${event.recordId} AND m.installation_id = ${event.installationId}`);
    const row = rows[0] as { client_id: string; message: string; deleted: boolean; token: string } | undefined;
    // A message delivered by anything but a room (another roomId) has no copy in one.
    if (!row || !isRoomMessageId(row.client_id)) return;
    const change: MessageChange = {
      roomId: row.client_id,
      message: row.deleted ? null : row.message,
      eventId: event.id,
    };
    await tellRoom(env, signal, row.token, '/message', change);
  },
};
