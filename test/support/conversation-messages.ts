// Shared setup of test/conversationmessages/: conversations started through the API, messages
// delivered as the rooms deliver them (a signed batch to the webhook), and the rows to compare.
import { expect } from 'vitest';
import { DEV_ROOM_WEBHOOK_SECRET } from '../../scripts/worker-vars';
import { signPayload } from '../../src/lib/webhook-signature';
import { api, type ApiResponse } from './api';
import { rows } from './db';

export const MESSAGES = '/v2/conversationmessages.json';
export const WEBHOOKS = '/v2/conversationmessages/webhooks.json';
export const BULK_UPDATE = '/v2/conversationmessages/update.json';
export const BULK_DELETE = '/v2/conversationmessages/delete.json';
export const messagePath = (id: number | string) => `/v2/conversationmessages/${id}.json`;
export const historyPath = (token: string) => `/v2/conversationmessages/history/${token}.json`;

/** A conversation as its create response tells it. */
export interface StartedConversation {
  id: number;
  token: string;
  contactId: number;
  socketUrl: string;
}

/** A message record as the API answers it (the properties the tests look at). */
export interface MessageRecord {
  id: number;
  type: string;
  message: string;
  author: string;
  contactId: number | null;
  userId: number | null;
  roomId: string;
  [property: string]: unknown;
}

/** `POST /v2/conversations.json` with an agent's key: 201 and the record. */
export async function startConversation(
  key: string,
  contact: { name: string; email?: string },
): Promise<StartedConversation> {
  const response = await api('/v2/conversations.json', { method: 'POST', key, body: { conversation: { contact } } });
  expect(response.status, response.text).toBe(201);
  return response.body.conversation;
}

/** A message as a room delivers it to the webhook. */
export interface DeliveredMessage {
  conversationToken: string;
  roomId: string;
  author: 'contact' | 'agent' | 'ai' | 'system';
  userId?: number | null;
  contactId?: number | null;
  message: string;
  aiDraft?: string | null;
  sentAt: string;
}

let roomIds = 0;
const run = Math.random().toString(36).slice(2, 8);

/** A room's id for a new message: unique within this test process. */
export const newRoomId = () => `${run}-${++roomIds}`;

/** What the conversation's contact said, as its room delivers it. */
export function fromContact(
  conversation: StartedConversation,
  message: string,
  extra: Partial<DeliveredMessage> = {},
): DeliveredMessage {
  return {
    conversationToken: conversation.token,
    roomId: newRoomId(),
    author: 'contact',
    contactId: conversation.contactId,
    message,
    sentAt: new Date().toISOString(),
    ...extra,
  };
}

/** What a teammate answered in the conversation, as its room delivers it. */
export function fromAgent(
  conversation: StartedConversation,
  userId: number,
  message: string,
  extra: Partial<DeliveredMessage> = {},
): DeliveredMessage {
  return {
    conversationToken: conversation.token,
    roomId: newRoomId(),
    author: 'agent',
    userId,
    message,
    sentAt: new Date().toISOString(),
    ...extra,
  };
}

/** The two headers a room signs a delivery with (docs/realtime.md), by default for now and with the local secret. */
export async function signatureHeaders(
  body: string,
  options: { timestamp?: number; secret?: string } = {},
): Promise<Record<string, string>> {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  return {
    'x-desk-timestamp': String(timestamp),
    'x-desk-signature': await signPayload(options.secret ?? DEV_ROOM_WEBHOOK_SECRET, timestamp, body),
  };
}

/** Posts a delivery signed over exactly the text sent (an object is sent as JSON). */
export async function postSigned(body: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return api(WEBHOOKS, { method: 'POST', body: text, headers: { ...(await signatureHeaders(text)), ...headers } });
}

/** Delivers messages as one signed batch: 201, and the stored records in id order. */
export async function deliver(...messages: DeliveredMessage[]): Promise<MessageRecord[]> {
  const response = await postSigned({ conversationmessages: messages });
  expect(response.status, response.text).toBe(201);
  return response.body.conversationmessages;
}

/** Delivers one message (the spec's single body) and answers its stored record. */
export async function deliverOne(message: DeliveredMessage): Promise<MessageRecord> {
  const response = await postSigned({ conversationmessage: message });
  expect(response.status, response.text).toBe(201);
  return response.body.conversationmessage;
}

/** Every message row of these installations, whole, in id order: what a refused request must leave alone. */
export async function messageRows(installationIds: number[]): Promise<unknown[]> {
  return rows(`SELECT to_jsonb(m) AS row FROM conversation_messages m WHERE installation_id = ANY($1) ORDER BY id`, [
    installationIds,
  ]);
}

/** One stored message row, the columns the API may change. */
export async function messageRow(id: number) {
  const [row] = await rows<{
    message: string;
    state: string;
    updated_by: number | null;
    deleted_by: number | null;
    deleted_at: Date | null;
  }>(`SELECT message, state, updated_by, deleted_by, deleted_at FROM conversation_messages WHERE id = $1`, [id]);
  return row;
}

/** The ids of a list body, in order. */
export const listedIds = (body: { conversationmessages: { id: number }[] }) =>
  body.conversationmessages.map((m) => m.id);
