import type { Env } from '../app-env';
import { MAX_BODY_BYTES } from '../http/json-body';
import { signPayload } from '../lib/webhook-signature';
import type { RoomConversation } from './room-store';
import type { DeliveredMessage, RoomMessage } from './room-protocol';

export const DELIVERY_BATCH = 100;
/**
 * How long the room gathers messages before a delivery: a busy room sends one batch per interval
 * instead of one webhook call (and one database transaction) per message.
 */
export const DELIVERY_GATHER_MS = 1000;
export const WEBHOOK_PATH = '/v2/conversationmessages/webhooks.json';

/** Waits between failed deliveries: 1 s, 2 s, 4 s, ... up to a minute, for as long as it takes. */
export function retryDelayMs(attempts: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, attempts - 1));
}

export function asDelivered(conversation: RoomConversation, message: RoomMessage): DeliveredMessage {
  const { type, id } = message.author;
  return {
    conversationToken: conversation.token,
    roomId: message.id,
    author: type,
    contactId: type === 'contact' ? id : null,
    // an agent's message, or an AI answer an agent's integration sent; the form's assistant and the room's notices have no user
    userId: type === 'agent' || (type === 'ai' && id > 0) ? id : null,
    message: message.message,
    aiDraft: message.aiDraft,
    sentAt: message.sentAt,
  };
}

/** What one delivery's body may weigh: the endpoint refuses bodies over `MAX_BODY_BYTES`. */
export const MAX_DELIVERY_BYTES = MAX_BODY_BYTES - 1024;

const encoder = new TextEncoder();

/**
 * The body of one delivery: the first messages of `batch` that fit `MAX_DELIVERY_BYTES`, at
 * least one (a message is at most a few tens of KB). The rest go in the next delivery.
 */
export function deliveryPayload(
  conversation: RoomConversation,
  batch: RoomMessage[],
): { body: string; messages: RoomMessage[] } {
  const items: string[] = [];
  let bytes = encoder.encode('{"conversationmessages":[]}').byteLength;
  for (const message of batch) {
    const item = JSON.stringify(asDelivered(conversation, message));
    const size = encoder.encode(item).byteLength + (items.length ? 1 : 0);
    if (items.length && bytes + size > MAX_DELIVERY_BYTES) break;
    items.push(item);
    bytes += size;
  }
  return { body: `{"conversationmessages":[${items.join(',')}]}`, messages: batch.slice(0, items.length) };
}

/** The signed webhook request of one delivery's body, as the platform signs its deliveries (docs/realtime.md). */
export async function deliveryRequest(env: Env, base: string, body: string): Promise<Request> {
  const secret = env.ROOM_WEBHOOK_SECRET;
  if (!secret) throw new Error('ROOM_WEBHOOK_SECRET is not set');
  const timestamp = Math.floor(Date.now() / 1000);
  return new Request(new URL(WEBHOOK_PATH, base), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      prefer: 'return=minimal',
      'x-desk-event': 'conversationmessages.created',
      'x-desk-delivery': crypto.randomUUID(),
      'x-desk-timestamp': String(timestamp),
      'x-desk-signature': await signPayload(secret, timestamp, body),
    },
    body,
  });
}

/** A refusal that no retry can change: our own payload was wrong. Anything else is retried. */
export function isPermanentRefusal(status: number): boolean {
  return status === 400 || status === 413 || status === 415;
}
