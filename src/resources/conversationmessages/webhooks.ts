import { inArray } from 'drizzle-orm';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { MAX_MESSAGE_LENGTH } from '../../realtime/room-protocol';
import type { AppEnv } from '../../app-env';
import { MESSAGE_AUTHORS, conversationMessages } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { addRoute } from '../../http/route';
import { checkSignature } from '../../lib/webhook-signature';
import { errorBodySchema } from '../../openapi/schemas';
import { readJsonText, validate } from '../engine/body';
import { selectPage } from '../engine/queries';
import { conversationMessagesResource } from './conversationmessages.resource';
import { storeMessages, type DeliveredMessage } from './store-messages';

export const MAX_EVENTS_PER_DELIVERY = 500;

const id = z.number().int().positive().max(2_147_483_647);

const deliveredMessage = z
  .strictObject({
    conversationToken: z.string().regex(/^\d{1,40}$/, 'must be a conversation token (digits)'),
    roomId: z.string().min(1).max(64),
    author: z.enum(MESSAGE_AUTHORS),
    userId: id.nullable().default(null),
    contactId: id.nullable().default(null),
    message: z.string().min(1).max(MAX_MESSAGE_LENGTH),
    aiDraft: z.string().max(MAX_MESSAGE_LENGTH).nullable().default(null),
    sentAt: z.iso.datetime({ offset: true }),
  })
  .refine((m) => m.author !== 'agent' || m.userId !== null, { message: 'an agent\'s message names its userId', path: ['userId'] })
  .refine((m) => m.author !== 'contact' || m.contactId !== null, { message: 'a contact\'s message names its contactId', path: ['contactId'] })
  .refine((m) => m.aiDraft === null || m.author === 'agent', { message: 'only an agent\'s reply comes from an AI draft', path: ['aiDraft'] });

const deliveredBatch = z.array(deliveredMessage).min(1).max(MAX_EVENTS_PER_DELIVERY);

/** One message (`{"conversationmessage": {...}}`, the spec's body) or a batch (`{"conversationmessages": [...]}`). */
const deliveryBody = z.union([z.strictObject({ conversationmessage: deliveredMessage }), z.strictObject({ conversationmessages: deliveredBatch })]);

/**
 * The delivery's messages, checked against the wrapper it names, so that a refusal names the
 * item and property at fault (a union's error would only say the body is wrong).
 */
function deliveredMessages(body: unknown): { single: boolean; messages: DeliveredMessage[] } {
  const keys = body !== null && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : [];
  const record = body as Record<string, unknown>;
  if (keys.length === 1 && keys[0] === 'conversationmessage') {
    return { single: true, messages: [validate(deliveredMessage, record.conversationmessage, 'conversationmessage')] };
  }
  if (keys.length === 1 && keys[0] === 'conversationmessages') {
    return { single: false, messages: validate(deliveredBatch, record.conversationmessages, 'conversationmessages') };
  }
  throw ApiError.invalid('body', 'must be an object with exactly one of conversationmessage (one message) and conversationmessages (a batch)');
}

/** Refuses a delivery that is not signed with the rooms' secret (docs/realtime.md). */
async function requireSignature(c: Context<AppEnv>, text: string): Promise<void> {
  const secret = c.env.ROOM_WEBHOOK_SECRET;
  if (!secret) throw new Error('ROOM_WEBHOOK_SECRET is not set');
  const problem = await checkSignature(secret, c.req.header('x-desk-signature'), c.req.header('x-desk-timestamp'), text);
  if (problem === 'missing') throw ApiError.unauthorized('sign the delivery: X-Desk-Signature and X-Desk-Timestamp are required');
  if (problem === 'stale') throw ApiError.unauthorized('X-Desk-Timestamp is not within 5 minutes of now');
  if (problem === 'mismatch') throw ApiError.unauthorized('X-Desk-Signature does not match the body');
}

/** `Prefer: return=minimal` (RFC 7240), among other preferences or alone. */
const prefersMinimal = (prefer: string | undefined) =>
  prefer !== undefined && prefer.split(',').some((preference) => preference.trim().toLowerCase() === 'return=minimal');

/**
 * `POST /v2/conversationmessages/webhooks.json`: the rooms (our realtime-messaging provider)
 * deliver accepted messages here in batches. Signed, not authenticated by an API key; safe to
 * deliver again: every message is stored once.
 */
async function receiveDelivery(c: Context<AppEnv>) {
  const { text, body } = await readJsonText(c);
  await requireSignature(c, text);
  const { single, messages } = deliveredMessages(body);
  const stored = await storeMessages(c.var.db.http, messages, single ? 'conversationmessage' : 'conversationmessages');
  // The rooms only need to know the batch is stored: they ask for no body (RFC 7240) and spare
  // the endpoint reading back and shaping every record.
  if (prefersMinimal(c.req.header('prefer'))) return c.body(null, 201, { 'Preference-Applied': 'return=minimal' });

  const records = [];
  for (const installationId of new Set(stored.map((row) => row.installationId))) {
    const ids = stored.filter((row) => row.installationId === installationId).map((row) => row.id);
    const who = { installationId, userId: 0, role: 'owner' as const };
    const page = await selectPage(c.var.db.http, conversationMessagesResource, { who, where: inArray(conversationMessages.id, ids), includes: [] }, {
      limit: ids.length,
      offset: 0,
      order: undefined,
    });
    records.push(...page.records);
  }
  return c.json(single ? { conversationmessage: records[0], included: {} } : { conversationmessages: records, included: {} }, 201);
}

export function webhooksRoute(app: Hono<AppEnv>): void {
  addRoute(app, {
    method: 'post',
    path: '/v2/conversationmessages/webhooks.json',
    public: true,
    tag: 'conversationmessages',
    summary: 'Receive a signed batch of messages from the realtime rooms (X-Desk-Signature, X-Desk-Timestamp)',
    body: { schema: deliveryBody, required: true },
    responses: {
      201: { description: 'the stored messages; no body when the request says `Prefer: return=minimal`' },
      ...Object.fromEntries([400, 401, 413, 415].map((status) => [status, { description: 'error', schema: errorBodySchema }])),
    },
  }, receiveDelivery);
}
