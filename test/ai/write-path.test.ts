import { describe, expect, it } from 'vitest';
import { DEV_ROOM_WEBHOOK_SECRET } from '../../scripts/worker-vars';
import { textSimilarity } from '../../src/lib/text-similarity';
import { signPayload } from '../../src/lib/webhook-signature';
import { api } from '../support/api';
import { runCron } from '../support/cron';
import { newInstallation, rows } from '../support/db';
import { newConversation, setBilling, utcDateFromToday } from './support';

/** Delivers messages as the rooms do: a signed batch to the webhook, the write path of messages. */
async function deliver(messages: Record<string, unknown>[]) {
  const body = JSON.stringify({ conversationmessages: messages });
  const timestamp = Math.floor(Date.now() / 1000);
  const response = await api('/v2/conversationmessages/webhooks.json', {
    method: 'POST',
    body,
    headers: {
      'x-desk-timestamp': String(timestamp),
      'x-desk-signature': await signPayload(DEV_ROOM_WEBHOOK_SECRET, timestamp, body),
    },
  });
  expect(response.status, response.text).toBe(201);
}

describe('usage and stats from messages stored by the write path', () => {
  it('meters an agent reply from a draft as replies and an AI answer as chat, once each however often delivered', async () => {
    const site = await newInstallation('ai-write');
    await setBilling(site.id, { anchor: utcDateFromToday(-40), interval: 'month', allowance: 4 });
    const conversation = await newConversation(site.id);
    const [{ token } = { token: '' }] = await rows<{ token: string }>(`SELECT token FROM conversations WHERE id = $1`, [
      conversation,
    ]);
    const sentAt = new Date(Date.now() - 3_600_000).toISOString();
    const draft = 'Your refund was sent today and arrives within five days.';
    const edited = 'Your refund was sent today and should arrive within a week.';
    const messages = [
      {
        conversationToken: token,
        roomId: 'm1',
        author: 'agent',
        userId: site.users.agent.id,
        message: draft,
        aiDraft: draft,
        sentAt,
      },
      {
        conversationToken: token,
        roomId: 'm2',
        author: 'agent',
        userId: site.users.agent.id,
        message: edited,
        aiDraft: draft,
        sentAt,
      },
      { conversationToken: token, roomId: 'm3', author: 'ai', message: 'Hello! How can I help?', sentAt },
      {
        conversationToken: token,
        roomId: 'm4',
        author: 'agent',
        userId: site.users.agent.id,
        message: 'Written by hand.',
        sentAt,
      },
    ];
    await deliver(messages);
    await deliver(messages);

    await runCron(new Date());

    const usage = (await api('/v2/ai/usage.json', { key: site.users.agent.apiKey })).body.aiusage;
    expect(usage).toMatchObject({
      state: 'ok',
      allowance: 4,
      used: 3,
      remaining: 1,
      percentUsed: 75,
      streams: { replies: 2, chat: 1 },
    });

    const similarity = textSimilarity(draft, edited);
    expect(similarity).toBeGreaterThanOrEqual(50);
    const stats = (await api('/v2/ai/stats.json', { key: site.users.agent.apiKey })).body.aieffectiveness;
    expect(stats).toMatchObject({
      repliesCount: 2,
      sentAsIs: 50,
      edited: 50,
      rewritten: 0,
      avgSimilarity: Math.round((100 + similarity) * 5) / 10,
    });
  });
});
