// Bad input on a room's socket: each refused frame gets its error frame, only its sender sees
// it, the socket stays open and the room goes on for everyone. Refused joins (wrong token, no
// upgrade, another installation's key), and resends by clientId stored once.
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { eventually, joinRoom, type RoomClient } from '../support/room';

let site: SeededInstallation;
let other: SeededInstallation;
let agentKey: string;
const opened: RoomClient[] = [];

interface Room {
  conversation: { id: number; token: string; socketUrl: string; contactId: number };
  contact: RoomClient;
  agent: RoomClient;
}

async function startConversation(name = 'Sam') {
  const created = await api('/v2/conversations.json', {
    method: 'POST',
    key: agentKey,
    body: { conversation: { contact: { name } } },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.conversation as Room['conversation'];
}

async function join(socketUrl: string, key?: string) {
  const client = await joinRoom(socketUrl, key);
  opened.push(client);
  await client.next('welcome');
  return client;
}

/** A conversation with its contact and an agent in the room. */
async function room(): Promise<Room> {
  const conversation = await startConversation();
  const contact = await join(conversation.socketUrl);
  const agent = await join(conversation.socketUrl, agentKey);
  await contact.next('presence');
  return { conversation, contact, agent };
}

let sent = 0;

/**
 * The room goes on after a refused frame: the culprit's socket is open, the other client saw no
 * error, and a normal message from each reaches both.
 */
async function roomStillWorks({ contact, agent }: Room) {
  expect(contact.socket.readyState).toBe(WebSocket.OPEN);
  expect(agent.socket.readyState).toBe(WebSocket.OPEN);
  expect(agent.frames.filter((frame) => frame.type === 'error')).toEqual([]);

  const fromAgent = `agent says ${++sent}`;
  agent.send({ type: 'message', message: fromAgent, clientId: `ok-${sent}` });
  expect(await contact.next('message')).toMatchObject({
    message: fromAgent,
    author: { type: 'agent', id: site.users.agent.id },
  });
  expect(await agent.next('message')).toMatchObject({ message: fromAgent, clientId: `ok-${sent}` });

  const fromContact = `contact says ${++sent}`;
  contact.send({ type: 'message', message: fromContact, clientId: `ok-${sent}` });
  expect(await agent.next('message')).toMatchObject({ message: fromContact, author: { type: 'contact' } });
  expect(await contact.next('message')).toMatchObject({ message: fromContact, clientId: `ok-${sent}` });
}

/** The contact sends `frame` and gets an error frame with this code; the room goes on. */
async function refused(frame: unknown, code: string, extra: Record<string, unknown> = {}) {
  const r = await room();
  if (Buffer.isBuffer(frame)) r.contact.socket.send(frame);
  else r.contact.send(frame);
  const error = await r.contact.next('error');
  expect(error).toMatchObject({ type: 'error', code, ...extra });
  expect(typeof error.detail).toBe('string');
  expect(error.detail.length).toBeGreaterThan(0);
  await roomStillWorks(r);
  // Nothing of the refused frame was broadcast.
  expect(r.agent.frames.filter((f) => f.type === 'message').map((f) => f.message)).toEqual([
    `agent says ${sent - 1}`,
    `contact says ${sent}`,
  ]);
  return error;
}

beforeAll(async () => {
  site = await newInstallation('socket-bad');
  other = await newInstallation('socket-bad-other');
  agentKey = site.users.agent.apiKey;
});

afterAll(async () => {
  await Promise.all(opened.map((client) => client.close()));
});

describe('refused frames', () => {
  it('a binary frame: not_text', async () => {
    await refused(Buffer.from([0x7b, 0x7d, 0x00, 0xff]), 'not_text');
  });

  it('a 20 KB frame: too_large', async () => {
    await refused(`{"type":"message","message":"${'x'.repeat(20_000)}"}`, 'too_large');
  });

  it('too large is counted in bytes: 6,000 three-byte characters (18,000 bytes) is too_large', async () => {
    await refused({ type: 'message', message: '€'.repeat(6000) }, 'too_large');
  });

  it('a message over 10,000 characters in a frame under the limit: invalid, naming message', async () => {
    await refused({ type: 'message', message: 'y'.repeat(10_001), clientId: 'long' }, 'invalid', { field: 'message' });
  });

  it('not JSON: invalid_json', async () => {
    await refused('hello room', 'invalid_json');
    await refused('{"type": "message", "message": ', 'invalid_json');
  });

  it('an unknown or missing type, or JSON that is not an object: unknown_type', async () => {
    const error = await refused({ type: 'shout', message: 'HEY' }, 'unknown_type');
    expect(error.detail).toMatch(/message, typing, ping/);
    await refused({ message: 'no type' }, 'unknown_type');
    await refused('null', 'unknown_type');
    await refused('[1,2]', 'unknown_type');
    await refused('42', 'unknown_type');
  });

  it('a message without its text: invalid, naming the field', async () => {
    await refused({ type: 'message', clientId: 'm1' }, 'invalid', { field: 'message' });
  });

  it('a blank message, a bad clientId, a bad typing frame, an unknown property: invalid, naming the field', async () => {
    await refused({ type: 'message', message: '  \n ' }, 'invalid', { field: 'message' });
    await refused({ type: 'message', message: 42 }, 'invalid', { field: 'message' });
    await refused({ type: 'message', message: 'hi', clientId: 'c'.repeat(65) }, 'invalid', { field: 'clientId' });
    await refused({ type: 'typing', typing: 'yes' }, 'invalid', { field: 'typing' });
    await refused({ type: 'message', message: 'hi', colour: 'red' }, 'invalid', { field: 'colour' });
  });

  it('a NUL character (Postgres cannot store it): invalid, naming the field', async () => {
    await refused({ type: 'message', message: 'hello\u0000world' }, 'invalid', { field: 'message' });
  });

  it('a contact sending aiDraft or as: forbidden, with its clientId', async () => {
    await refused({ type: 'message', message: 'I am the AI', aiDraft: 'draft', clientId: 'f1' }, 'forbidden', {
      clientId: 'f1',
    });
    await refused({ type: 'message', message: 'I am the AI', as: 'ai', clientId: 'f2' }, 'forbidden', {
      clientId: 'f2',
    });
  });

  it('a burst of bad frames of every kind, then the room still works', async () => {
    const r = await room();
    r.contact.socket.send(Buffer.from('binary'));
    r.contact.send('x'.repeat(17_000));
    r.contact.send('{');
    r.contact.send({ type: 'nope' });
    r.contact.send({ type: 'message' });
    r.contact.send({ type: 'message', message: 'x', as: 'ai' });
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push((await r.contact.next('error')).code);
    expect(codes).toEqual(['not_text', 'too_large', 'invalid_json', 'unknown_type', 'invalid', 'forbidden']);
    await roomStillWorks(r);
  });

  it('refused frames are never stored: only the good messages reach Postgres', async () => {
    const r = await room();
    r.contact.send({ type: 'message', message: 'bad', aiDraft: 'x' });
    r.contact.send({ type: 'message', message: '   ' });
    await r.contact.next('error');
    await r.contact.next('error');
    await roomStillWorks(r);
    const stored = await eventually(async () => {
      const found = await rows<{ message: string }>(
        `SELECT message FROM conversation_messages WHERE conversation_id = $1 ORDER BY id`,
        [r.conversation.id],
      );
      return found.length >= 2 ? found : undefined;
    });
    expect(stored.map((row) => row.message)).toEqual([`agent says ${sent - 1}`, `contact says ${sent}`]);
  });
});

describe('what the room accepts always reaches Postgres', () => {
  it('a burst of long messages, more than one delivery can carry, is stored whole, in order', async () => {
    const r = await room();
    // 5,000 three-byte characters: 15 KB a frame, under the frame limit; 80 of them are 1.2 MB.
    const texts = Array.from({ length: 80 }, (_, i) => `${i} ${'€'.repeat(5000)}`);
    for (const [i, text] of texts.entries()) r.agent.send({ type: 'message', message: text, clientId: `long-${i}` });
    for (let i = 0; i < texts.length; i++) await r.agent.next('message');
    const stored = await eventually(async () => {
      const found = await rows<{ message: string }>(
        `SELECT message FROM conversation_messages WHERE conversation_id = $1 ORDER BY id`,
        [r.conversation.id],
      );
      return found.length >= texts.length ? found : undefined;
    }, 20_000);
    expect(stored.map((row) => row.message)).toEqual(texts);
  });
});

describe('refused joins', () => {
  const refusedJoin = async (socketUrl: string, key?: string) => {
    const error = await joinRoom(socketUrl, key).then(
      (client) => {
        opened.push(client);
        return undefined;
      },
      (reason: { status?: number }) => reason,
    );
    expect(error, 'the join was accepted').toBeDefined();
    return error!.status;
  };

  it('a wrong token: 404 before any upgrade', async () => {
    const conversation = await startConversation();
    expect(await refusedJoin(conversation.socketUrl.replace(conversation.token, '123456789012345678901234'))).toBe(404);
    expect(await refusedJoin(conversation.socketUrl.replace(conversation.token, conversation.token.slice(1)))).toBe(
      404,
    );
    expect(await refusedJoin(conversation.socketUrl.replace(conversation.token, `${conversation.token}0`))).toBe(404);
    expect(await refusedJoin(conversation.socketUrl.replace(conversation.token, 'not-a-token'))).toBe(404);
  });

  it("a deleted conversation's token: 404", async () => {
    const conversation = await startConversation();
    await rows(`UPDATE conversations SET state = 'deleted', deleted_at = now() WHERE id = $1`, [conversation.id]);
    expect(await refusedJoin(conversation.socketUrl)).toBe(404);
  });

  // The route sets `Upgrade: websocket` on the 426, but workerd drops that hop-by-hop header, so it is not asserted.
  it('no upgrade: 426 with the error body; a wrong token without upgrade: 404', async () => {
    const conversation = await startConversation();
    const http = new URL(conversation.socketUrl.replace(/^ws:/, 'http:')).pathname;
    const response = await api(http);
    expect(response.status, response.text).toBe(426);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(response.body)).toEqual(['errors', 'requestId']);
    expect(response.body.errors[0]).toMatchObject({ code: 'upgradeRequired' });
    expectError(await api(http.replace(conversation.token, '999999999999999999999999')), 404, 'token');
    expect(new URL(conversation.socketUrl).host).toBe(new URL(inject('workerUrl')).host);
  });

  it('an agent key of another installation: 404, like a wrong token; a bad key: 401; a collaborator: 403', async () => {
    const conversation = await startConversation();
    expect(await refusedJoin(conversation.socketUrl, other.users.agent.apiKey)).toBe(404);
    expect(await refusedJoin(conversation.socketUrl, other.users.owner.apiKey)).toBe(404);
    expect(await refusedJoin(conversation.socketUrl, 'hd_notarealkeynotarealkeynotarealkeynotare')).toBe(401);
    expect(await refusedJoin(conversation.socketUrl, site.users.collaborator.apiKey)).toBe(403);
    // The room's own members are not disturbed by refused joins.
    const contact = await join(conversation.socketUrl);
    expect(contact.frames[0]!.present).toEqual([{ role: 'contact', id: conversation.contactId, name: 'Sam' }]);
  });
});

describe('resending with the same clientId', () => {
  it("is answered with the stored message's id, broadcast once and stored in Postgres once", async () => {
    const r = await room();
    r.contact.send({ type: 'message', message: 'Only once please', clientId: 'resend-1' });
    const first = await r.contact.next('message');
    expect(await r.agent.next('message')).toMatchObject({ id: first.id, clientId: 'resend-1' });

    r.contact.send({ type: 'message', message: 'Only once please', clientId: 'resend-1' });
    const again = await r.contact.next('message');
    expect(again).toEqual(first);
    // Even with another text, the clientId names the message already stored.
    r.contact.send({ type: 'message', message: 'Edited before the resend', clientId: 'resend-1' });
    expect(await r.contact.next('message')).toEqual(first);

    // A later message marks the end: once it is in Postgres, so is everything before it.
    r.contact.send({ type: 'message', message: 'After', clientId: 'resend-2' });
    const after = await r.contact.next('message');
    expect(Number(after.id)).toBe(Number(first.id) + 1);
    const stored = await eventually(async () => {
      const found = await rows<{ message: string; client_id: string }>(
        `SELECT message, client_id FROM conversation_messages WHERE conversation_id = $1 ORDER BY id`,
        [r.conversation.id],
      );
      return found.some((row) => row.message === 'After') ? found : undefined;
    });
    expect(stored).toEqual([
      { message: 'Only once please', client_id: first.id },
      { message: 'After', client_id: after.id },
    ]);
    // The agent saw each message once.
    expect(r.agent.frames.filter((f) => f.type === 'message').map((f) => f.clientId)).toEqual(['resend-1', 'resend-2']);
  });

  it('survives a reconnect: the resend on a new socket is answered with the same message', async () => {
    const conversation = await startConversation();
    const first = await join(conversation.socketUrl);
    first.send({ type: 'message', message: 'Sent before the drop', clientId: 'drop-1' });
    const accepted = await first.next('message');
    await first.close();
    const second = await join(conversation.socketUrl);
    expect(second.frames[0]!.history).toEqual([accepted]);
    second.send({ type: 'message', message: 'Sent before the drop', clientId: 'drop-1' });
    expect(await second.next('message')).toEqual(accepted);
  });

  it("a clientId is the sender's own: the agent's message is not swallowed because the contact used the same clientId", async () => {
    const r = await room();
    r.contact.send({ type: 'message', message: 'from the contact', clientId: 'c-1' });
    await r.contact.next('message');
    await r.agent.next('message');
    r.agent.send({ type: 'message', message: 'from the agent', clientId: 'c-1' });
    const ack = await r.agent.next('message');
    expect(ack).toMatchObject({
      message: 'from the agent',
      author: { type: 'agent', id: site.users.agent.id },
      clientId: 'c-1',
    });
    expect(await r.contact.next('message', 2000)).toMatchObject({ message: 'from the agent' });
  });
});
