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
  const created = await api('/v2/conversations.json', {
    method: 'POST',
    key: agentKey,
    body: { conversation: { contact: { name, email: 'ada@example.com' } } },
  });
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
    expect(seenByAgent).toMatchObject({
      message: 'Hello, my order is late',
      clientId: 'c1',
      author: { type: 'contact' },
    });
    expect(seenByContact.id).toBe(seenByAgent.id);

    const history = await eventually(async () => {
      const response = await api(`/v2/conversationmessages/history/${conversation.token}.json`);
      return response.body?.conversationmessages?.length === 1 ? response : undefined;
    });
    expect(history.body.conversationmessages[0]).toMatchObject({
      message: 'Hello, my order is late',
      author: 'contact',
    });
    const stored = await rows('SELECT count(*)::int AS n FROM conversation_messages WHERE conversation_id = $1', [
      conversation.id,
    ]);
    expect(stored[0]!.n).toBe(1);
    await contact.close();
    await agent.close();
  });
});

describe('AI work said in a room', () => {
  it('an agent reply from a draft and an AI answer are stored with their draft and metered once each', async () => {
    const conversation = await startConversation('Lin');
    const agent = await joinRoom(conversation.socketUrl, agentKey);
    await agent.next('welcome');
    agent.send({
      type: 'message',
      message: 'Your parcel left today and arrives Friday.',
      aiDraft: 'Your parcel left today and arrives on Monday.',
      clientId: 'a1',
    });
    agent.send({ type: 'message', message: 'Hi! I am the assistant.', as: 'ai', clientId: 'a2' });
    const first = await agent.next('message');
    const second = await agent.next('message');
    expect(first).toMatchObject({ clientId: 'a1', author: { type: 'agent', id: site.users.agent.id } });
    expect(first).not.toHaveProperty('aiDraft');
    expect(second).toMatchObject({ clientId: 'a2', author: { type: 'ai' } });

    const stored = await eventually(async () => {
      const found = await rows<{ id: number; author: string; ai_draft: string | null; ai_similarity: number | null }>(
        'SELECT id, author, ai_draft, ai_similarity FROM conversation_messages WHERE conversation_id = $1 ORDER BY id',
        [conversation.id],
      );
      return found.length === 2 ? found : undefined;
    });
    expect(stored[0]).toMatchObject({ author: 'agent', ai_draft: 'Your parcel left today and arrives on Monday.' });
    expect(stored[0]!.ai_similarity).toBeGreaterThan(50);
    expect(stored[0]!.ai_similarity).toBeLessThan(100);
    expect(stored[1]).toMatchObject({ author: 'ai', ai_draft: null });
    const usage = await rows<{ stream: string; source_id: number }>(
      `SELECT stream, source_id FROM ai_usage_events WHERE installation_id = $1 AND source_id = ANY($2) ORDER BY source_id`,
      [site.id, stored.map((row) => row.id)],
    );
    expect(usage).toEqual([
      { stream: 'replies', source_id: stored[0]!.id },
      { stream: 'chat', source_id: stored[1]!.id },
    ]);
    await agent.close();
  });

  it('refuses aiDraft and as from the contact, and the room goes on', async () => {
    const conversation = await startConversation('Mo');
    const contact = await joinRoom(conversation.socketUrl);
    await contact.next('welcome');
    contact.send({ type: 'message', message: 'pretend', aiDraft: 'x', clientId: 'p1' });
    expect(await contact.next('error')).toMatchObject({ code: 'forbidden', clientId: 'p1' });
    contact.send({ type: 'message', message: 'real', clientId: 'p2' });
    expect(await contact.next('message')).toMatchObject({ clientId: 'p2', author: { type: 'contact' } });
    await contact.close();
  });
});

describe('heartbeat', () => {
  it('answers a ping with a pong, exact or spaced', async () => {
    const conversation = await startConversation('Pat');
    const contact = await joinRoom(conversation.socketUrl);
    await contact.next('welcome');
    contact.send('{"type":"ping"}');
    await contact.next('pong');
    contact.send('{ "type": "ping" }');
    await contact.next('pong');
    await contact.close();
  });
});
