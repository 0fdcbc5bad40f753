// What the event tests share: conversations whose room the agent has joined (the room's frames
// are what the `tellRoom` subscriber did), a subscriber made to fail, and the drain's lock.
import pg from 'pg';
import { expect, inject } from 'vitest';
import { api } from '../support/api';
import { rows } from '../support/db';
import { joinRoom, type RoomClient } from '../support/room';

const openRooms: RoomClient[] = [];
const undoers: (() => Promise<void>)[] = [];

/** A conversation with the agent (`key`) joined to its room. */
export async function conversationInRoom(key: string): Promise<{ id: number; token: string; room: RoomClient }> {
  const response = await api('/v2/conversations.json', {
    method: 'POST',
    key,
    body: { conversation: { contact: { name: 'Events' } } },
  });
  expect(response.status, response.text).toBe(201);
  const { id, token, socketUrl } = response.body.conversation;
  const room = await joinRoom(socketUrl, key);
  openRooms.push(room);
  await room.next('welcome');
  return { id, token, room };
}

export const statusFrames = (room: RoomClient) => room.frames.filter((frame) => frame.type === 'status');

export async function patchConversation(key: string, id: number, body: Record<string, unknown>): Promise<void> {
  const response = await api(`/v2/conversations/${id}.json`, { method: 'PATCH', key, body });
  expect(response.status, response.text).toBe(200);
}

/**
 * Marking an event of this conversation handled by `conversations.tellRoom` fails, after the room
 * was told, as that subscriber (or the drain) failing there would: until undone, or only the first time (`once`; a sequence
 * counts, as it survives the rollback of the failing try).
 */
export async function failHandling(conversationId: number, { once = false } = {}): Promise<() => Promise<void>> {
  const name = `test_events_${Math.random().toString(36).slice(2, 10)}`;
  await rows(`CREATE SEQUENCE ${name}`);
  await rows(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.handled_at IS NOT NULL AND NEW.subscriber = 'conversations.tellRoom'
         AND (SELECT record_type = 'conversations' AND record_id = ${conversationId} FROM events WHERE id = NEW.event_id)
         AND (NOT ${once} OR nextval('${name}') = 1) THEN
        RAISE EXCEPTION 'test: this subscriber fails';
      END IF;
      RETURN NEW;
    END $$`);
  await rows(
    `CREATE TRIGGER ${name} BEFORE INSERT OR UPDATE ON event_deliveries FOR EACH ROW EXECUTE FUNCTION ${name}()`,
  );
  const undo = async () => {
    await rows(`DROP TRIGGER IF EXISTS ${name} ON event_deliveries`);
    await rows(`DROP FUNCTION IF EXISTS ${name}()`);
    await rows(`DROP SEQUENCE IF EXISTS ${name}`);
  };
  undoers.push(undo);
  return undo;
}

/**
 * Holds the installation's drain lock, as a drain that is running would, until released: in an
 * open transaction, as the drain takes it, so that a pooler in transaction mode (Neon's pooled
 * endpoint) keeps the one backend holding it for this client alone.
 */
export async function holdDrainLock(installationId: number): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  await client.query('BEGIN');
  await client.query(`SELECT pg_advisory_xact_lock(hashtext('events.drain'), $1::int)`, [installationId]);
  return async () => {
    await client.query('COMMIT');
    await client.end();
  };
}

/** For `afterAll`: undoes the failures still in place and closes the rooms. */
export async function cleanUp(): Promise<void> {
  await Promise.all(undoers.splice(0).map((undo) => undo()));
  await Promise.all(openRooms.splice(0).map((room) => room.close()));
}
