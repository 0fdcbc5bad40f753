// A room's delivery of messages, counted in exchanges with the database (the request log's
// `dbRoundTrips`): one statement sent as a batch, the messages stored once with their events and
// the conversation's `lastMessageAt`; the stored records read back after it, unless the room asks
// for no body (`Prefer: return=minimal`, as the rooms do): 1 exchange, else 2. A delivery naming
// a conversation that is not there is refused in its one exchange, storing nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import {
  fromContact,
  messageRows,
  signatureHeaders,
  startConversation,
  WEBHOOKS,
  type StartedConversation,
} from '../support/conversation-messages';
import { newInstallation, rows } from '../support/db';
import { withRoundTrips } from '../support/round-trips';

let site: SeededInstallation;
let chat: StartedConversation;

beforeAll(async () => {
  site = await newInstallation('delivery-trips');
  chat = await startConversation(site.users.agent.apiKey, { name: 'Ada' });
});

async function delivered(body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  return withRoundTrips(WEBHOOKS, {
    method: 'POST',
    body: text,
    headers: { ...(await signatureHeaders(text)), ...headers },
  });
}

describe("a room's delivery", () => {
  it('is one exchange without a body, two with the records read back', async () => {
    const minimal = await delivered(
      { conversationmessages: [fromContact(chat, 'one'), fromContact(chat, 'two')] },
      { prefer: 'return=minimal' },
    );
    expect(minimal.answer.status, minimal.answer.text).toBe(201);
    expect(minimal.trips).toBe(1);
    const whole = await delivered({ conversationmessage: fromContact(chat, 'three') });
    expect(whole.answer.status, whole.answer.text).toBe(201);
    expect(whole.trips).toBe(2);
    expect(whole.answer.body.conversationmessage).toMatchObject({ message: 'three', author: 'contact' });
    expect(
      (
        await rows<{ message: string }>(
          'SELECT message FROM conversation_messages WHERE conversation_id = $1 ORDER BY id',
          [chat.id],
        )
      ).map((m) => m.message),
    ).toEqual(['one', 'two', 'three']);
    const [conversation] = await rows<{ last: boolean }>(
      'SELECT last_message_at IS NOT NULL AS last FROM conversations WHERE id = $1',
      [chat.id],
    );
    expect(conversation!.last).toBe(true);
  });

  it('naming a conversation that is not there, is refused whole in its one exchange', async () => {
    const before = await messageRows([site.id]);
    const refused = await delivered({
      conversationmessages: [
        fromContact(chat, 'kept?'),
        { ...fromContact(chat, 'lost'), conversationToken: '9'.repeat(24) },
      ],
    });
    expect(refused.answer.status).toBe(400);
    expect(refused.answer.body.errors).toEqual([
      {
        code: 'invalid',
        source: 'conversationmessages[1].conversationToken',
        detail: 'no conversation has this token',
      },
    ]);
    expect(refused.trips).toBe(1);
    expect(await messageRows([site.id])).toEqual(before);
  });
});
