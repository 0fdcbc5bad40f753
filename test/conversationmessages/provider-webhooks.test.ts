// POST /v2/conversationmessages/webhooks.json: the rooms (our realtime-messaging provider)
// deliver accepted messages here, signed. Stored once however often delivered; anything
// unsigned, stale, tampered or malformed is refused whole and stores nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import {
  deliver,
  deliverOne,
  fromAgent,
  fromContact,
  messageRows,
  postSigned,
  signatureHeaders,
  startConversation,
  WEBHOOKS,
  type StartedConversation,
} from '../support/conversation-messages';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { expectIgnored } from '../support/ignored';

let site: SeededInstallation;
let other: SeededInstallation;
let mine: StartedConversation;
let theirs: StartedConversation;

const everyRow = () => messageRows([site.id, other.id]);

/** Sends `body` with `headers` (no signature unless given) and checks the refusal left every row as it was. */
async function refused(body: string, headers: Record<string, string>, status: number, source?: string | RegExp) {
  const before = await everyRow();
  const response = await api(WEBHOOKS, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
  const entry = expectError(response, status, source);
  expect(await everyRow()).toEqual(before);
  return entry;
}

const conversationRows = (conversation: StartedConversation) =>
  rows<{
    id: number;
    installation_id: number;
    author: string;
    message: string;
    client_id: string;
    user_id: number | null;
    contact_id: number | null;
  }>(
    `SELECT m.id, m.installation_id, m.author, m.message, m.client_id, m.user_id, m.contact_id
     FROM conversation_messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.token = $1 ORDER BY m.id`,
    [conversation.token],
  );

beforeAll(async () => {
  site = await newInstallation('webhooks');
  other = await newInstallation('webhooks-other');
  mine = await startConversation(site.users.agent.apiKey, { name: 'Ada' });
  theirs = await startConversation(other.users.agent.apiKey, { name: 'Theo' });
});

describe('POST /v2/conversationmessages/webhooks.json: signed deliveries', () => {
  it("stores one message (the spec's body) and answers 201 with its record", async () => {
    const sent = fromContact(mine, 'Hello, is anyone there?');
    const record = await deliverOne(sent);
    expect(record).toMatchObject({ message: 'Hello, is anyone there?', author: 'contact', roomId: sent.roomId });
    expect(await conversationRows(mine)).toContainEqual(
      expect.objectContaining({
        id: record.id,
        installation_id: site.id,
        author: 'contact',
        client_id: sent.roomId,
        contact_id: mine.contactId,
        user_id: null,
      }),
    );
  });

  it('stores a batch in order, each message in the installation of its own conversation', async () => {
    const batch = [
      fromContact(mine, 'first'),
      fromAgent(mine, site.users.agent.id, 'second'),
      fromContact(theirs, 'third, elsewhere'),
    ];
    const records = await deliver(...batch);
    expect(records.map((r) => r.message)).toEqual(['first', 'second', 'third, elsewhere']);
    const stored = await rows<{ message: string; installation_id: number }>(
      `SELECT message, installation_id FROM conversation_messages WHERE client_id = ANY($1) ORDER BY id`,
      [batch.map((m) => m.roomId)],
    );
    expect(stored).toEqual([
      { message: 'first', installation_id: site.id },
      { message: 'second', installation_id: site.id },
      { message: 'third, elsewhere', installation_id: other.id },
    ]);
  });

  it('a redelivered batch stores nothing twice and answers the same records', async () => {
    const batch = [fromContact(mine, 'once only'), fromAgent(mine, site.users.agent.id, 'me too')];
    const first = await deliver(...batch);
    const before = await everyRow();
    const again = await deliver(...batch);
    expect(again.map((r) => r.id)).toEqual(first.map((r) => r.id));
    // A redelivery with one new message stores just that one.
    const extra = fromContact(mine, 'and one more');
    const mixed = await deliver(...batch, extra);
    expect(mixed.slice(0, 2).map((r) => r.id)).toEqual(first.map((r) => r.id));
    const after = await everyRow();
    expect(after).toHaveLength(before.length + 1);
    expect((await conversationRows(mine)).filter((r) => r.message === 'once only')).toHaveLength(1);
  });

  it('with Prefer: return=minimal answers 201 with no body, and stores the batch', async () => {
    const batch = { conversationmessages: [fromContact(mine, 'minimal please')] };
    const text = JSON.stringify(batch);
    const response = await api(WEBHOOKS, {
      method: 'POST',
      body: text,
      headers: { 'content-type': 'application/json', prefer: 'return=minimal', ...(await signatureHeaders(text)) },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.text).toBe('');
    expect(response.headers.get('preference-applied')).toBe('return=minimal');
    expect((await conversationRows(mine)).filter((r) => r.message === 'minimal please')).toHaveLength(1);
  });

  it("moves the conversation's lastMessageAt to its newest message", async () => {
    const conversation = await startConversation(site.users.agent.apiKey, { name: 'Clock' });
    await deliver(
      fromContact(conversation, 'early', { sentAt: '2026-03-01T10:00:00.000Z' }),
      fromContact(conversation, 'late', { sentAt: '2026-03-01T11:30:00.000Z' }),
    );
    const [row] = await rows<{ last: string }>(
      `SELECT to_char(last_message_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') AS last FROM conversations WHERE id = $1`,
      [conversation.id],
    );
    expect(row!.last).toBe('2026-03-01T11:30:00');
  });
});

describe('POST /v2/conversationmessages/webhooks.json: refused whole, nothing stored', () => {
  const body = () => JSON.stringify({ conversationmessages: [fromContact(mine, 'should never be stored')] });

  it('unsigned, or half signed: 401', async () => {
    await refused(body(), {}, 401);
    const text = body();
    const { 'x-desk-signature': signature } = await signatureHeaders(text);
    await refused(text, { 'x-desk-signature': signature! }, 401);
  });

  it('signed with another secret, or the signature of another body: 401', async () => {
    const text = body();
    await refused(text, await signatureHeaders(text, { secret: 'not-the-rooms-secret' }), 401);
    await refused(text, await signatureHeaders(body()), 401);
  });

  it('the body changed after signing: 401', async () => {
    const text = body();
    const headers = await signatureHeaders(text);
    await refused(text.replace('should never be stored', 'tampered with'), headers, 401);
  });

  it('a timestamp more than 5 minutes old or ahead: 401, saying so', async () => {
    const text = body();
    const now = Math.floor(Date.now() / 1000);
    const stale = await refused(text, await signatureHeaders(text, { timestamp: now - 330 }), 401);
    expect(stale.detail).toMatch(/5 minutes/);
    await refused(text, await signatureHeaders(text, { timestamp: now + 330 }), 401);
    await refused(text, await signatureHeaders(text, { timestamp: Number.NaN }), 401);
  });

  it('a captured delivery played again with its timestamp moved to now (past the window): 401, the signature covers the timestamp', async () => {
    const text = body();
    const captured = await signatureHeaders(text, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    await refused(text, captured, 401);
    const retimed = await refused(
      text,
      { ...captured, 'x-desk-timestamp': String(Math.floor(Date.now() / 1000)) },
      401,
    );
    expect(retimed.detail).toMatch(/does not match/);
  });

  /** Signs `text` properly and expects the refusal. */
  const signedRefusal = async (text: string, status: number, source?: string | RegExp) =>
    refused(text, await signatureHeaders(text), status, source);

  it('a token of no conversation, anywhere in the batch: 400 naming the item, nothing of the batch stored', async () => {
    const good = fromContact(mine, 'good but in a bad batch');
    const unknown = { ...fromContact(mine, 'nowhere'), conversationToken: '999999999999999999999999' };
    await signedRefusal(
      JSON.stringify({ conversationmessages: [good, unknown] }),
      400,
      'conversationmessages[1].conversationToken',
    );
    await signedRefusal(JSON.stringify({ conversationmessage: unknown }), 400, /conversationToken/);
  });

  it('more than 500 messages: 400; an empty batch: 400', async () => {
    const many = Array.from({ length: 501 }, (_, i) => fromContact(mine, `bulk ${i}`));
    await signedRefusal(JSON.stringify({ conversationmessages: many }), 400, /conversationmessages/);
    await signedRefusal(JSON.stringify({ conversationmessages: [] }), 400, /conversationmessages/);
  });

  it('wrong types or missing properties in one item: 400 naming it, the whole batch refused', async () => {
    const good = fromContact(mine, 'good');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...fromContact(mine, 'x'), message: 42 }, /message/],
      [{ ...fromContact(mine, 'x'), message: '' }, /message/],
      [{ ...fromContact(mine, 'x'), author: 'robot' }, /author/],
      [{ ...fromContact(mine, 'x'), sentAt: 'yesterday' }, /sentAt/],
      [{ ...fromContact(mine, 'x'), roomId: undefined }, /roomId/],
      [{ ...fromContact(mine, 'x'), contactId: null }, /contactId/],
      [{ ...fromAgent(mine, site.users.agent.id, 'x'), userId: null }, /userId/],
      [{ ...fromContact(mine, 'x'), aiDraft: 'only agents have drafts' }, /aiDraft/],
      [{ ...fromContact(mine, 'x'), conversationToken: 'abc' }, /conversationToken/],
    ];
    for (const [item, source] of cases)
      await signedRefusal(JSON.stringify({ conversationmessages: [good, item] }), 400, source);
    await signedRefusal(JSON.stringify({ conversationmessage: good, conversationmessages: [good] }), 400);
  });

  it('an unknown property, in an item or beside the batch: ignored and named in X-Ignored-Properties (an installationId decides nothing)', async () => {
    const response = await postSigned({
      conversationmessages: [{ ...fromContact(mine, 'ignoring theirs'), installationId: other.id }],
      extra: true,
    });
    expectIgnored(response, ['conversationmessages[0].installationId', 'extra']);
    expect(await rows(`SELECT installation_id FROM conversation_messages WHERE message = 'ignoring theirs'`)).toEqual([
      { installation_id: site.id },
    ]);
  });

  it('malformed JSON, a body that is not an object, no body: 400; not JSON: 415', async () => {
    await signedRefusal('{"conversationmessages": [', 400);
    await signedRefusal('[]', 400);
    await signedRefusal('', 400);
    const text = body();
    const before = await everyRow();
    const response = await api(WEBHOOKS, {
      method: 'POST',
      body: text,
      headers: { 'content-type': 'text/plain', ...(await signatureHeaders(text)) },
    });
    expectError(response, 415);
    expect(await everyRow()).toEqual(before);
  });

  it('an API key is no signature: 401 even for the owner', async () => {
    const before = await everyRow();
    const response = await api(WEBHOOKS, {
      method: 'POST',
      key: site.users.owner.apiKey,
      body: { conversationmessages: [fromContact(mine, 'by key')] },
    });
    expectError(response, 401);
    expect(await everyRow()).toEqual(before);
  });

  it('no error body tells internals', async () => {
    const entry = await refused(body(), {}, 401);
    expect(JSON.stringify(entry)).not.toMatch(/ROOM_WEBHOOK_SECRET|stack|at \w+ \(/);
  });
});
