import { inArray } from 'drizzle-orm';
import type { Context, MiddlewareHandler, TypedResponse } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app-env';
import { systemActor } from '../../auth/principal';
import { MESSAGE_AUTHORS, conversationMessages } from '../../db/schema';
import { schemasOf, selectPage } from '../../engine';
import { ApiError } from '../../http/errors';
import { jsonBodyText, pathName } from '../../http/json-body';
import { idValue } from '../../http/params';
import { bodyObject, describeBody, validate } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { checkSignature, MAX_SKEW_SECONDS, type SignatureProblem } from '../../lib/webhook-signature';
import { MAX_MESSAGE_LENGTH } from '../../realtime/room-limits';
import { conversationMessagesResource } from './conversationmessages.resource';
import type { DeliveredMessage } from '../../realtime/room-protocol';
import { storeMessages } from './store-messages';

export const MAX_EVENTS_PER_DELIVERY = 500;

const deliveredMessage = bodyObject({
  conversationToken: z.string().regex(/^\d{1,40}$/, 'must be a conversation token (digits)'),
  roomId: z.string().min(1).max(64),
  author: z.enum(MESSAGE_AUTHORS),
  userId: idValue.nullable().default(null),
  contactId: idValue.nullable().default(null),
  message: z.string().min(1).max(MAX_MESSAGE_LENGTH),
  aiDraft: z.string().max(MAX_MESSAGE_LENGTH).nullable().default(null),
  sentAt: z.iso.datetime({ offset: true }),
})
  .refine((m) => m.author !== 'agent' || m.userId !== null, {
    message: "an agent's message names its userId",
    path: ['userId'],
  })
  .refine((m) => m.author !== 'contact' || m.contactId !== null, {
    message: "a contact's message names its contactId",
    path: ['contactId'],
  })
  .refine((m) => m.aiDraft === null || m.author === 'agent', {
    message: "only an agent's reply comes from an AI draft",
    path: ['aiDraft'],
  });

const deliveredBatch = z.array(deliveredMessage).min(1).max(MAX_EVENTS_PER_DELIVERY);

/** One message (`{"conversationmessage": {...}}`, the spec's body) or a batch (`{"conversationmessages": [...]}`). */
const deliveryBody = z
  .preprocess(
    (raw, ctx) => {
      // both forms at once say two things: refused, not one of them ignored
      if (raw !== null && typeof raw === 'object' && 'conversationmessage' in raw && 'conversationmessages' in raw)
        ctx.addIssue({ code: 'custom', message: 'one message or a batch, not both' });
      return raw;
    },
    z.union([
      bodyObject({ conversationmessage: deliveredMessage }),
      bodyObject({ conversationmessages: deliveredBatch }),
    ]),
  )
  .meta({ id: 'MessageDelivery' });

/**
 * The delivery's messages, checked against the wrapper it names, so that a refusal names the
 * item and property at fault (a union's error would only say the body is wrong).
 */
function deliveredMessages(body: unknown): { single: boolean; messages: DeliveredMessage[] } {
  const keys = body !== null && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : [];
  const record = body as Record<string, unknown>;
  if (keys.includes('conversationmessage') && !keys.includes('conversationmessages')) {
    return { single: true, messages: [validate(deliveredMessage, record.conversationmessage, 'conversationmessage')] };
  }
  if (keys.includes('conversationmessages') && !keys.includes('conversationmessage')) {
    return { single: false, messages: validate(deliveredBatch, record.conversationmessages, 'conversationmessages') };
  }
  throw ApiError.invalid(
    'body',
    'must be an object with exactly one of conversationmessage (one message) and conversationmessages (a batch)',
  );
}

describeBody(deliveryBody, {
  name: (path) => pathName('', path) || 'body',
  explain: (raw) => {
    deliveredMessages(raw);
    return [];
  },
});

/** What the signature headers alone say is wrong (none sent, or a timestamp not within 5 minutes of now): no need to read the body. */
function headersProblem(signature: string | undefined, timestamp: string | undefined): SignatureProblem | undefined {
  if (!signature || !timestamp) return 'missing';
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Math.floor(Date.now() / 1000) - Number(timestamp)) > MAX_SKEW_SECONDS)
    return 'stale';
  return undefined;
}

/**
 * Refuses a delivery that is not signed with the rooms' secret (docs/realtime.md), before its
 * body is parsed: an unsigned or stale delivery is a 401 before anything of the body is read,
 * so an unsigned caller cannot make the Worker buffer one; the body is read (415, 413) only to
 * check the signature over it.
 */
const requireSignature: MiddlewareHandler<AppEnv> = async (c, next) => {
  const secret = c.env.ROOM_WEBHOOK_SECRET;
  if (!secret) throw new Error('ROOM_WEBHOOK_SECRET is not set');
  const signature = c.req.header('x-desk-signature');
  const timestamp = c.req.header('x-desk-timestamp');
  const problem =
    headersProblem(signature, timestamp) ?? (await checkSignature(secret, signature, timestamp, await jsonBodyText(c)));
  if (problem === 'missing')
    throw ApiError.unauthorized('sign the delivery: X-Desk-Signature and X-Desk-Timestamp are required');
  if (problem === 'stale') throw ApiError.unauthorized('X-Desk-Timestamp is not within 5 minutes of now');
  if (problem === 'mismatch') throw ApiError.unauthorized('X-Desk-Signature does not match the body');
  await next();
};

/** `Prefer: return=minimal` (RFC 7240), among other preferences or alone. */
const prefersMinimal = (prefer: string | undefined) =>
  prefer !== undefined && prefer.split(',').some((preference) => preference.trim().toLowerCase() === 'return=minimal');

const s = schemasOf(conversationMessagesResource);

const storedBody = z.union([
  z.object({ conversationmessage: s.record, included: z.object({}) }),
  z.object({ conversationmessages: z.array(s.record), included: z.object({}) }),
]);

/**
 * The 201 without its body, as `Prefer: return=minimal` asked (RFC 7240): the operation declares
 * it on its 201 (the description and `Preference-Applied`); typed as the 201 it is, with no data.
 */
const minimalCreated = (c: Context<AppEnv>) =>
  c.body(null, 201, { 'Preference-Applied': 'return=minimal' }) as unknown as TypedResponse<never, 201, 'json'>;

/**
 * `POST /v2/conversationmessages/webhooks.json`: the rooms (our realtime-messaging provider)
 * deliver accepted messages here in batches. Signed, not authenticated by an API key; safe to
 * deliver again: every message is stored once. The messages are the room's writes (`room`).
 */
export const receiveConversationMessagesRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/conversationmessages/webhooks.json',
    tag: 'ConversationMessages',
    operationId: 'receiveConversationMessages',
    public: true,
    summary: 'Receive a signed batch of messages from the realtime rooms (X-Desk-Signature, X-Desk-Timestamp)',
    description:
      'Safe to deliver again: every message is stored once (by conversation and room id). `Prefer: return=minimal` answers 201 without a body (and without a content type), saying so in `Preference-Applied`.',
    middleware: [requireSignature],
    request: {
      headers: z.object({
        'x-desk-signature': z
          .string()
          .meta({ description: 'sha256=<hex HMAC-SHA256 of "<timestamp>.<body>"> with the rooms\' secret' }),
        'x-desk-timestamp': z.string().meta({ description: 'epoch seconds, within 5 minutes of now' }),
        prefer: z.string().optional().meta({ description: '`return=minimal`: answer 201 without a body (RFC 7240)' }),
      }),
      body: { required: true, content: { 'application/json': { schema: deliveryBody } } },
    },
    example: {
      body: {
        conversationmessage: {
          conversationToken: '033696316659779986089274',
          roomId: 'room-1-17',
          author: 'contact',
          contactId: 1,
          message: 'Do you ship to Norway?',
          sentAt: '2026-11-29T10:00:00.000Z',
        },
      },
    },
    responses: {
      201: {
        ...jsonResponse(
          'the stored messages; no body at all (no content type) when the request says `Prefer: return=minimal`',
          storedBody,
        ),
        headers: {
          'Preference-Applied': {
            description: '`return=minimal` when the request asked for it: then the answer has no body',
            required: false,
            schema: { type: 'string', enum: ['return=minimal'] },
          },
        },
      },
      401: errorResponse('not signed, a stale timestamp, or a signature that does not match'),
    },
  },
  async (c) => {
    const body = c.req.valid('json');
    const single = 'conversationmessage' in body;
    const messages: DeliveredMessage[] = single ? [body.conversationmessage] : body.conversationmessages;
    const stored = await storeMessages(c.var.db, messages, single ? 'conversationmessage' : 'conversationmessages');
    // The rooms only need to know the batch is stored: they ask for no body (RFC 7240) and spare
    // the endpoint reading back and shaping every record.
    if (prefersMinimal(c.req.header('prefer'))) return minimalCreated(c);

    const records = [];
    for (const installationId of new Set(stored.map((row) => row.installationId))) {
      const ids = stored.filter((row) => row.installationId === installationId).map((row) => row.id);
      const page = await selectPage(
        c.var.db.http,
        conversationMessagesResource,
        { who: systemActor(installationId, 'room'), where: inArray(conversationMessages.id, ids), includes: [] },
        {
          limit: ids.length,
          offset: 0,
          order: undefined,
        },
      );
      records.push(...page.records);
    }
    return c.json(
      single ? { conversationmessage: records[0]!, included: {} } : { conversationmessages: records, included: {} },
      201,
    );
  },
);
