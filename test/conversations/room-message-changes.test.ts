// Messages edited or deleted through the API reach their room (issue 31): the room's welcome
// replays its own copy of the last messages to whoever joins with the conversation's token (a
// credential the visitor holds), so a removed message must be gone from it and an edited one
// show its new text; everyone in the room at the time is told with a `deleted` or `edited` frame.
// One record or in bulk, through the events' subscriber `conversationmessages.tellRoom`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import {
  BULK_DELETE,
  BULK_UPDATE,
  historyPath,
  messagePath,
  startConversation,
  type StartedConversation,
} from '../support/conversation-messages';
import { newInstallation, rows } from '../support/db';
import { drained, eventsOf } from '../support/events';
import { sendJobMessage } from '../support/queue';
import { eventually, joinRoom, type Frame, type RoomClient } from '../support/room';

let site: SeededInstallation;
let key: string;
const open: RoomClient[] = [];

beforeAll(async () => {
  site = await newInstallation('room-changes');
  key = site.users.agent.apiKey;
});

afterAll(async () => {
  await Promise.all(open.map((room) => room.close()));
});

async function join(
  conversation: StartedConversation,
  agentKey?: string,
): Promise<{ room: RoomClient; welcome: Frame }> {
  const room = await joinRoom(conversation.socketUrl, agentKey);
  open.push(room);
  return { room, welcome: await room.next('welcome') };
}

/** A conversation with its visitor and an agent in the room. */
async function chat() {
  const conversation = await startConversation(key, { name: 'Ada Visitor', email: 'ada@example.com' });
  const visitor = (await join(conversation)).room;
  const agent = (await join(conversation, key)).room;
  return { conversation, visitor, agent };
}

/** The visitor says `text`; answers the room's frame of it once Postgres holds it, with its record's id there. */
async function say(conversation: StartedConversation, visitor: RoomClient, text: string, clientId: string) {
  visitor.send({ type: 'message', message: text, clientId });
  const frame = await visitor.next('message');
  expect(frame).toMatchObject({ clientId, message: text });
  const id = await eventually(async () => {
    const [row] = await rows<{ id: number }>(
      'SELECT id FROM conversation_messages WHERE conversation_id = $1 AND client_id = $2',
      [conversation.id, frame.id],
    );
    return row?.id;
  });
  return { roomId: frame.id as string, id };
}

/** What a newcomer joining with the token is shown: the welcome's history, as [room id, text]. */
async function historyOnJoin(conversation: StartedConversation): Promise<[string, string][]> {
  const { room, welcome } = await join(conversation);
  await room.close();
  return welcome.history.map((message: Frame) => [message.id, message.message]);
}

describe('a message deleted through the API', () => {
  it('is gone from the welcome of whoever joins with the token, and everyone in the room is told', async () => {
    const { conversation, visitor, agent } = await chat();
    const kept = await say(conversation, visitor, 'My order #1042 is late', 'v1');
    const removed = await say(conversation, visitor, 'My card is 4111 1111 1111 1111', 'v2');
    expect(await historyOnJoin(conversation)).toEqual([
      [kept.roomId, 'My order #1042 is late'],
      [removed.roomId, 'My card is 4111 1111 1111 1111'],
    ]);

    expect((await api(messagePath(removed.id), { method: 'DELETE', key })).status).toBe(204);
    expect(await visitor.next('deleted', 10_000)).toEqual({ type: 'deleted', id: removed.roomId });
    expect(await agent.next('deleted', 10_000)).toEqual({ type: 'deleted', id: removed.roomId });

    // The attack: the visitor's token, rejoining, replays no removed text; nor does the public history.
    expect(await historyOnJoin(conversation)).toEqual([[kept.roomId, 'My order #1042 is late']]);
    const history = await api(historyPath(conversation.token));
    expect(history.body.conversationmessages.map((message: { message: string }) => message.message)).toEqual([
      'My order #1042 is late',
    ]);
  });

  it('sent again by its client id is answered as deleted, neither stored nor shown again', async () => {
    const { conversation, visitor, agent } = await chat();
    const removed = await say(conversation, visitor, 'Please call me at 555 0100', 'v-resent');
    expect((await api(messagePath(removed.id), { method: 'DELETE', key })).status).toBe(204);
    await agent.next('deleted', 10_000);
    await visitor.next('deleted', 10_000);

    visitor.send({ type: 'message', message: 'Please call me at 555 0100', clientId: 'v-resent' });
    expect(await visitor.next('deleted')).toEqual({ type: 'deleted', id: removed.roomId, clientId: 'v-resent' });
    expect(await historyOnJoin(conversation)).toEqual([]);
    expect(agent.frames.filter((frame) => frame.type === 'message')).toHaveLength(1);
    const stored = await rows('SELECT client_id, state FROM conversation_messages WHERE conversation_id = $1', [
      conversation.id,
    ]);
    expect(stored).toEqual([{ client_id: removed.roomId, state: 'deleted' }]);
  });

  it('told to the room again (a redelivered event) changes nothing and is not broadcast again', async () => {
    const { conversation, visitor, agent } = await chat();
    const removed = await say(conversation, visitor, 'Delete me', 'v-once');
    const later = await say(conversation, visitor, 'Then edit me', 'v-later');
    expect((await api(messagePath(removed.id), { method: 'DELETE', key })).status).toBe(204);
    await agent.next('deleted', 10_000);
    await drained(site.id);
    const [event] = (await eventsOf(site.id, 'conversationmessages', removed.id)).filter((e) => e.kind === 'deleted');
    // As a drain that told the room and died before recording it.
    await rows(`DELETE FROM event_deliveries WHERE event_id = $1 AND subscriber = 'conversationmessages.tellRoom'`, [
      event!.id,
    ]);
    await rows('UPDATE events SET dispatched_at = NULL WHERE id = $1', [event!.id]);
    await sendJobMessage({ kind: 'events.drain', installationId: site.id });
    await drained(site.id);
    const [handled] = await rows(
      `SELECT handled_at IS NOT NULL AS handled FROM event_deliveries WHERE event_id = $1 AND subscriber = 'conversationmessages.tellRoom'`,
      [event!.id],
    );
    expect(handled).toEqual({ handled: true });

    // A later change's frame comes after any the redelivery sent: there was none.
    expect(
      (await api(messagePath(later.id), { method: 'PATCH', key, body: { conversationmessage: { message: 'Edited' } } }))
        .status,
    ).toBe(200);
    expect(await agent.next('edited', 10_000)).toMatchObject({ id: later.roomId, message: 'Edited' });
    expect(
      agent.frames.filter((frame) => frame.type === 'deleted' || frame.type === 'edited').map((frame) => frame.type),
    ).toEqual(['deleted', 'edited']);
  });
});

describe('a message edited through the API', () => {
  it('shows its new text in the welcome, and everyone in the room gets it', async () => {
    const { conversation, visitor, agent } = await chat();
    const edited = await say(conversation, visitor, 'My password is hunter2', 'v1');
    const response = await api(messagePath(edited.id), {
      method: 'PATCH',
      key,
      body: { conversationmessage: { message: 'My password is [redacted]' } },
    });
    expect(response.status, response.text).toBe(200);

    const frame = await visitor.next('edited', 10_000);
    expect(frame).toEqual({
      type: 'edited',
      id: edited.roomId,
      clientId: 'v1',
      author: { type: 'contact', id: conversation.contactId },
      message: 'My password is [redacted]',
      sentAt: expect.any(String),
    });
    expect(await agent.next('edited', 10_000)).toEqual(frame);
    expect(await historyOnJoin(conversation)).toEqual([[edited.roomId, 'My password is [redacted]']]);
  });
});

describe('messages changed in bulk', () => {
  it('a bulk delete and a bulk update reach the room: each message told, the welcome as Postgres holds them', async () => {
    const { conversation, visitor, agent } = await chat();
    const first = await say(conversation, visitor, 'secret one', 'v1');
    const second = await say(conversation, visitor, 'secret two', 'v2');
    const third = await say(conversation, visitor, 'typo hre', 'v3');
    const kept = await say(conversation, visitor, 'nothing to hide', 'v4');

    const deleting = await api(BULK_DELETE, {
      method: 'DELETE',
      key,
      query: { filter: { id: { $in: [first.id, second.id] } } },
    });
    expect(deleting.status, deleting.text).toBe(200);
    const gone = [await agent.next('deleted', 10_000), await agent.next('deleted', 10_000)];
    expect(gone.map((frame) => frame.id).sort()).toEqual([first.roomId, second.roomId].sort());

    const updating = await api(BULK_UPDATE, {
      method: 'PATCH',
      key,
      query: { filter: { id: third.id } },
      body: { conversationmessage: { message: 'typo here' } },
    });
    expect(updating.status, updating.text).toBe(200);
    expect(await visitor.next('edited', 10_000)).toMatchObject({ id: third.roomId, message: 'typo here' });

    expect(await historyOnJoin(conversation)).toEqual([
      [third.roomId, 'typo here'],
      [kept.roomId, 'nothing to hide'],
    ]);
  });
});
