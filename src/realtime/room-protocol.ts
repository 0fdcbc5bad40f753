import { z } from 'zod';
import { storableText } from '../lib/field-schemas';
import type { MESSAGE_AUTHORS } from '../db/schema';
import { MAX_MESSAGE_LENGTH } from './room-limits';

/** Headers the Worker sets on a join it has checked (`src/resources/rooms/join-conversation-room.route.ts`). */
export const ROOM_HEADERS = { conversation: 'x-room-conversation', participant: 'x-room-participant' } as const;

/** Who a socket is: the conversation's contact, or a teammate. Kept on the socket across hibernation. */
export interface Participant {
  role: 'contact' | 'agent';
  id: number;
  name: string;
}

const clientId = z.string().min(1).max(64);
/** A message's text, stored in Postgres. */
const messageText = storableText(MAX_MESSAGE_LENGTH);

/** What a client may send. */
export const clientFrame = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('message'),
    message: messageText.refine((text) => text.trim() !== '', 'must not be blank'),
    clientId: clientId.optional(),
    /** agents only: the AI draft this reply started from */
    aiDraft: messageText.optional(),
    /** agents only: `ai` when an AI assistant integration writes the answer */
    as: z.literal('ai').optional(),
  }),
  z.strictObject({ type: z.literal('typing'), typing: z.boolean() }),
  z.strictObject({ type: z.literal('ping') }),
]);
export type ClientFrame = z.output<typeof clientFrame>;
export const CLIENT_FRAME_TYPES = ['message', 'typing', 'ping'];

/** The heartbeat, exactly as a client sends it, is answered by the runtime without waking the room. */
export const PING_FRAME = '{"type":"ping"}';
export const PONG_FRAME = '{"type":"pong"}';

/** A message as the room stores and broadcasts it. */
export interface RoomMessage {
  id: string;
  clientId: string | null;
  /** `ai` with id 0: the form's AI assistant (an agent's integration answering `as: ai` has the agent's id); `system`: the room's own notice */
  author: { type: 'contact' | 'agent' | 'ai' | 'system'; id: number };
  message: string;
  aiDraft: string | null;
  sentAt: string;
}

export type ErrorCode =
  | 'not_text'
  | 'too_large'
  | 'invalid_json'
  | 'unknown_type'
  | 'invalid'
  | 'forbidden'
  | 'conversation_closed'
  | 'rate_limited';

export function errorFrame(code: ErrorCode, detail: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ type: 'error', code, detail, ...extra });
}

/**
 * The message frame everyone in the room gets; the sender's `clientId` comes back in it as the
 * acknowledgement. `edited`: the same message with the text a teammate set through the API.
 */
export function messageFrame(message: RoomMessage, type: 'message' | 'edited' = 'message'): string {
  const { aiDraft: _draft, ...visible } = message;
  return JSON.stringify({ type, ...visible });
}

/**
 * Words of the AI assistant's answer as it writes them (`stream` names the answer): the answer
 * stored whole follows as a `message` frame whose `clientId` is the stream's name, or, when it is
 * not kept (a hand-over, the model failing), a frame with `done: true` and no text.
 */
export function streamFrame(stream: string, words: string | null): string {
  return JSON.stringify(
    words === null
      ? { type: 'stream', stream, done: true }
      : { type: 'stream', stream, author: { type: 'ai', id: 0 }, text: words },
  );
}

/**
 * A message deleted through the API: gone from the room. The sender resending its `clientId`
 * gets it back with that id, as the answer to the resend.
 */
export function deletedFrame(id: string, clientId?: string | null): string {
  return JSON.stringify({ type: 'deleted', id, ...(clientId ? { clientId } : {}) });
}

/** The room's ids of its messages are its storage's sequence numbers; a message delivered with any other `roomId` has no copy in a room. */
export function isRoomMessageId(id: string): boolean {
  return /^[1-9]\d{0,15}$/.test(id);
}

/** What the Worker tells a room of one of its messages changed through the API (`POST /message`): its text now, null once deleted. */
export interface MessageChange {
  roomId: string;
  message: string | null;
  /** the change's event: a room applies a message's events once, and none older than one it applied */
  eventId: number;
}

/**
 * A message as a room delivers it to `POST /v2/conversationmessages/webhooks.json` (signed,
 * `room-delivery.ts`), where it is stored (`resources/conversationmessages/store-messages.ts`):
 * the room's id for it is the key that makes delivery idempotent.
 */
export interface DeliveredMessage {
  conversationToken: string;
  roomId: string;
  author: (typeof MESSAGE_AUTHORS)[number];
  userId: number | null;
  contactId: number | null;
  message: string;
  aiDraft: string | null;
  sentAt: string;
}
