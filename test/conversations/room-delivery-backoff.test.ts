// A room whose delivery fails tries again after its backoff (1 s, then 2 s, ...), and what is said
// meanwhile waits for that try instead of bringing it forward. On a Worker of this file's own whose
// rooms deliver to a stand-in endpoint started here (`ROOM_WEBHOOK_URL`): it refuses as the test
// tells it, then passes each delivery on, unchanged, to the Worker's own endpoint, which stores it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { serveWorker, type WorkerUnderTest } from '../../scripts/worker-under-test';
import { WEBHOOK_PATH } from '../../src/realtime/room-delivery';
import { newInstallation, rows } from '../support/db';
import { eventually, joinRoom } from '../support/room';

interface Call {
  at: number;
  messages: string[];
  answered: number;
}

/** The rooms' endpoint: answers each call with the next of `refusals` while any are left, else passes it on. */
class FlakyEndpoint {
  calls: Call[] = [];
  refusals: number[] = [];
  passTo = '';
  private server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const messages = (JSON.parse(body).conversationmessages as Array<{ message: string }>).map((m) => m.message);
    const refusal = this.refusals.shift();
    let status = refusal ?? 0;
    if (refusal === undefined) {
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => name === 'content-type' || name.startsWith('x-desk-')),
      ) as Record<string, string>;
      const passed = await fetch(`${this.passTo}${WEBHOOK_PATH}`, { method: 'POST', headers, body });
      await passed.arrayBuffer();
      status = passed.status;
    }
    this.calls.push({ at: Date.now(), messages, answered: status });
    response.writeHead(status).end();
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let endpoint: FlakyEndpoint;
let worker: WorkerUnderTest;
let site: SeededInstallation;

beforeAll(async () => {
  endpoint = new FlakyEndpoint();
  const base = await endpoint.start();
  worker = await serveWorker(inject('stackParts'), inject('workerScript'), { vars: { ROOM_WEBHOOK_URL: base } });
  endpoint.passTo = worker.url;
  site = await newInstallation('room-backoff');
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await endpoint?.stop();
});

async function startConversation(name: string) {
  const response = await fetch(`${worker.url}/v2/conversations.json`, {
    method: 'POST',
    headers: { authorization: `Bearer ${site.users.agent.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ conversation: { contact: { name, email: 'backoff@example.com' } } }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { conversation: { id: number; socketUrl: string } }).conversation;
}

const stored = (conversationId: number) =>
  rows<{ message: string }>('SELECT message FROM conversation_messages WHERE conversation_id = $1 ORDER BY id', [
    conversationId,
  ]);

/** A new conversation whose contact, joined, has said `first` (seen back); the endpoint answers `refusals` first. */
async function saidToFlakyEndpoint(name: string, first: string, refusals: number[]) {
  endpoint.calls.length = 0;
  endpoint.refusals = refusals;
  const conversation = await startConversation(name);
  const contact = await joinRoom(conversation.socketUrl);
  await contact.next('welcome');
  contact.send({ type: 'message', message: first, clientId: 'c1' });
  await contact.next('message');
  await eventually(async () => (endpoint.calls.length >= 1 ? true : undefined));
  return { conversation, contact };
}

describe("a room's delivery that fails", () => {
  it('is tried again after 1 s, then 2 s; a message said meanwhile waits and goes with it, each stored once', async () => {
    const { conversation, contact } = await saidToFlakyEndpoint('Bo Backoff', 'first', [503, 503]);
    // the first try was refused; something said now must wait for the backoff
    contact.send({ type: 'message', message: 'second', clientId: 'c2' });
    await contact.next('message');

    const calls = await eventually(async () => (endpoint.calls.length >= 3 ? endpoint.calls : undefined), 20_000);
    expect(calls.map((call) => call.answered)).toEqual([503, 503, 201]);
    expect(calls[0]!.messages).toEqual(['first']);
    // the second message waited for the retry instead of being sent on its own
    expect(calls[1]!.messages).toEqual(['first', 'second']);
    expect(calls[2]!.messages).toEqual(['first', 'second']);
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(900);
    expect(calls[2]!.at - calls[1]!.at).toBeGreaterThanOrEqual(1900);

    expect(
      (
        await eventually(async () =>
          (await stored(conversation.id)).length === 2 ? stored(conversation.id) : undefined,
        )
      ).map((r) => r.message),
    ).toEqual(['first', 'second']);
    // acknowledged: nothing is sent again
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(endpoint.calls).toHaveLength(3);
    expect(await stored(conversation.id)).toHaveLength(2);
    await contact.close();
  });

  it('refused as malformed (400) is not tried again: the room keeps its messages, Postgres gets none', async () => {
    const { conversation, contact } = await saidToFlakyEndpoint('Rae Refused', 'never stored', [400]);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(endpoint.calls.map((call) => call.answered)).toEqual([400]);
    expect(await stored(conversation.id)).toHaveLength(0);

    // the room still has it: one who joins now is welcomed with it
    const again = await joinRoom(conversation.socketUrl);
    const welcome = await again.next('welcome');
    expect(JSON.stringify(welcome)).toContain('never stored');
    await again.close();
    await contact.close();
  });
});
