import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { eventually, joinRoom } from '../support/room';
import type { SeededInstallation } from '../../scripts/seed';

let site: SeededInstallation;
let agentKey: string;

beforeAll(async () => {
  site = await newInstallation('room');
  agentKey = site.users.agent.apiKey;
});

async function startConversation(name = 'Ada Visitor') {
  const created = await api('/v2/conversations.json', { method: 'POST', key: agentKey, body: { conversation: { contact: { name, email: 'ada@example.com' } } } });
  expect(created.status, created.text).toBe(201);
  return created.body.conversation;
}

describe('a conversation room', () => {
  it('broadcasts a message to everyone and stores it in Postgres', async () => {
    const conversation = await startConversation();
    expect(conversation.token).toMatch(/^\d{24}$/);
    expect(conversation.socketUrl).toMatch(/^ws:\/\/.+\/v2\/rooms\/\d{24}\/socket$/);

    const contact = await joinRoom(conversation.socketUrl);
    const welcome = await contact.next('welcome');
    expect(welcome.you.role).toBe('contact');
    const agent = await joinRoom(conversation.socketUrl, agentKey);
    await agent.next('welcome');
    expect((await contact.next('presence')).who.role).toBe('agent');

    contact.send({ type: 'message', message: 'Hello, my order is late', clientId: 'c1' });
    const seenByAgent = await agent.next('message');
    const seenByContact = await contact.next('message');
    expect(seenByAgent).toMatchObject({ message: 'Hello, my order is late', clientId: 'c1', author: { type: 'contact' } });
    expect(seenByContact.id).toBe(seenByAgent.id);

    const history = await eventually(async () => {
      const response = await api(`/v2/conversationmessages/history/${conversation.token}.json`);
      return response.body?.conversationmessages?.length === 1 ? response : undefined;
    });
    expect(history.body.conversationmessages[0]).toMatchObject({ message: 'Hello, my order is late', author: 'contact' });
    const stored = await rows('SELECT count(*)::int AS n FROM conversation_messages WHERE conversation_id = $1', [conversation.id]);
    expect(stored[0]!.n).toBe(1);
    await contact.close();
    await agent.close();
  });
});
