import { sql } from 'drizzle-orm';
import { type Subscriber } from '../../events/subscriber';
import { tellRoom } from './tell-room';

/**
 * Tells a conversation's room its status whenever a change of the conversation changed it, so
 * a closed conversation stops taking messages (within the queue's delay, about a second). Events
 * come in order, each with the status it set and its id: the room applies an event once, so a
 * second telling (a redelivery, a drain that died after the call) changes nothing.
 */
export const tellRoomStatus: Subscriber = {
  name: 'conversations.tellRoom',
  does: "tells the conversation's room the new status (open or closed) with the event id; the room ignores an id it applied",
  on: [{ recordType: 'conversations', kinds: ['updated'], changed: ['status'] }],
  async handle(event, { tx, env, signal }) {
    const change = event.data.status as { after?: unknown } | undefined;
    if (change?.after !== 'open' && change?.after !== 'closed') return;
    const { rows } = await tx.execute(
      sql`SELECT token FROM conversations WHERE id = ${event.recordId} AND installation_id = ${event.installationId}`,
    );
    const token = rows[0]?.token as string | undefined;
    if (!token) return;
    await tellRoom(env, signal, token, '/status', { status: change.after, eventId: event.id });
  },
};
