// A room left idle is evicted from memory (workerd evicts an idle Durable Object after 10 s; its
// hibernatable sockets stay open) and woken by the next frame. Who is who must survive that: it
// lives in each socket's attachment and the room's storage, never in the instance.
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support/api';
import { newInstallation } from '../support/db';
import { eventually, joinRoom } from '../support/room';
import type { SeededInstallation } from '../../scripts/seed';

/** Past workerd's 10 s inactivity eviction, with a margin. */
const IDLE_MS = 12_000;

let site: SeededInstallation;

beforeAll(async () => {
  site = await newInstallation('hibernation');
});

const storedMessages = (token: string, count: number) =>
  eventually(async () => {
    const response = await api(`/v2/conversationmessages/history/${token}.json`);
    return response.body?.conversationmessages?.length === count ? response.body.conversationmessages : undefined;
  });

describe('a room woken from hibernation', () => {
  it("still knows every socket's participant, its conversation and its messages", async () => {
    const created = await api('/v2/conversations.json', {
      method: 'POST',
      key: site.users.agent.apiKey,
      body: { conversation: { contact: { name: 'Idle Ida', email: 'ida@example.com' } } },
    });
    expect(created.status, created.text).toBe(201);
    const conversation = created.body.conversation;

    const contact = await joinRoom(conversation.socketUrl);
    const contactWelcome = await contact.next('welcome');
    const agent = await joinRoom(conversation.socketUrl, site.users.agent.apiKey);
    const agentWelcome = await agent.next('welcome');
    await contact.next('presence');
    contact.send({ type: 'message', message: 'before the nap', clientId: 'c1' });
    const first = await agent.next('message');
    await contact.next('message');
    // Delivered: no alarm left pending to keep the room awake.
    await storedMessages(conversation.token, 1);

    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    // A heartbeat is answered by the runtime without waking the room.
    agent.send('{"type":"ping"}');
    await agent.next('pong');

    agent.send({ type: 'typing', typing: true });
    expect(await contact.next('typing')).toEqual({ type: 'typing', who: agentWelcome.you, typing: true });
    agent.send({ type: 'message', message: 'after the nap', clientId: 'a1' });
    const answer = await contact.next('message');
    expect(answer).toMatchObject({
      message: 'after the nap',
      clientId: 'a1',
      author: { type: 'agent', id: site.users.agent.id },
    });
    expect(Number(answer.id)).toBeGreaterThan(Number(first.id));
    contact.send({ type: 'message', message: 'still me', clientId: 'c2' });
    expect(await agent.next('message')).toMatchObject({ message: 'after the nap' });
    expect(await agent.next('message')).toMatchObject({
      message: 'still me',
      author: { type: 'contact', id: contactWelcome.you.id },
    });
    // A client id used before the nap is still known to belong to its sender.
    contact.send({ type: 'message', message: 'before the nap (resent)', clientId: 'c1' });
    expect(await contact.next('message')).toMatchObject({ message: 'still me' });
    expect(await contact.next('message')).toMatchObject({ id: first.id, message: 'before the nap' });

    const owner = await joinRoom(conversation.socketUrl, site.users.owner.apiKey);
    const ownerWelcome = await owner.next('welcome');
    expect(ownerWelcome.conversation).toEqual({
      id: conversation.id,
      token: conversation.token,
      status: conversation.status,
    });
    expect(ownerWelcome.present).toEqual(expect.arrayContaining([contactWelcome.you, agentWelcome.you]));
    expect(ownerWelcome.history.map((m: { message: string }) => m.message)).toEqual([
      'before the nap',
      'after the nap',
      'still me',
    ]);

    const stored = await storedMessages(conversation.token, 3);
    expect(stored.map((m: { message: string; author: string }) => [m.message, m.author])).toEqual([
      ['before the nap', 'contact'],
      ['after the nap', 'agent'],
      ['still me', 'contact'],
    ]);
    await Promise.all([contact.close(), agent.close(), owner.close()]);
  }, 40_000);
});
