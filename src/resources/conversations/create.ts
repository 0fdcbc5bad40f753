import { sql } from 'drizzle-orm';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app-env';
import type { Principal } from '../../auth/principal';
import type { Transaction } from '../../db/client';
import { ApiError } from '../../http/errors';
import { addRoute } from '../../http/route';
import { errorBodySchema } from '../../openapi/schemas';
import { ignoringReadOnly, readJson, RECORD_ENVELOPE, unwrapRecord, validate } from '../engine/body';
import { selectOne } from '../engine/queries';
import { conversationCaller, type ConversationCaller } from './conversation-caller';
import { newConversationToken } from './conversation-token';
import { conversationsResource } from './conversations.resource';
import { roomAddress } from './room-address';

const id = z.number().int().positive().max(2_147_483_647);
const reference = (type: string) => z.union([id, z.object({ id, type: z.literal(type).optional() }).transform((ref) => ref.id)]);

const createBody = ignoringReadOnly(
  z
    .strictObject({
      contactId: id.optional(),
      contact: z.strictObject({ name: z.string().trim().min(1).max(255), email: z.email().max(254).optional() }).optional(),
      subject: z.string().trim().max(255).nullable().optional(),
      inbox: reference('inboxes').nullable().optional(),
    })
    .refine((body) => (body.contactId === undefined) !== (body.contact === undefined), {
      message: 'name the contact: either contactId, or contact with its name (and email)',
      path: ['contact'],
    }),
  [...RECORD_ENVELOPE, 'token', 'status', 'lastMessageAt', 'contactForm', 'ticket_id', 'socketUrl', 'socketId'],
);

type CreateBody = z.output<typeof createBody>;

/** The contact of the new conversation: the one named, or a new one (linked to the customer of that email, if any). */
async function contactFor(tx: Transaction, installationId: number, body: CreateBody): Promise<number> {
  if (body.contactId !== undefined) {
    const found = await tx.execute(sql`SELECT id FROM contacts WHERE id = ${body.contactId} AND installation_id = ${installationId} AND state = 'active'`);
    if (found.rows.length === 0) throw ApiError.invalid('conversation.contactId', `no contact ${body.contactId} here`);
    return body.contactId;
  }
  const { name, email } = body.contact!;
  const created = await tx.execute(sql`
    INSERT INTO contacts (installation_id, name, email, customer_id)
    VALUES (${installationId}, ${name}, ${email ?? null},
      (SELECT id FROM customers WHERE installation_id = ${installationId} AND state = 'active' AND lower(email) = lower(${email ?? null}) ORDER BY id LIMIT 1))
    RETURNING id`);
  return created.rows[0]!.id as number;
}

async function createConversation(c: Context<AppEnv>) {
  const caller: ConversationCaller = await conversationCaller(c);
  const body = validate(createBody, unwrapRecord(await readJson(c), 'conversation'), 'conversation');
  const widget = caller.kind === 'widget';
  if (widget && body.contactId !== undefined) throw ApiError.invalid('conversation.contactId', 'the chat widget names its visitor with contact (name and email)');
  if (widget && body.inbox !== undefined) throw ApiError.invalid('conversation.inbox', 'a widget conversation arrives in its contact form\'s inbox');
  const installationId = widget ? caller.installationId : caller.principal.installationId;
  const userId = widget ? null : caller.principal.userId;

  const conversationId = await c.var.db.transaction(async (tx) => {
    const contactId = await contactFor(tx, installationId, body);
    const inboxId = widget ? caller.inboxId : (body.inbox ?? null);
    if (inboxId !== null && !widget) {
      const inbox = await tx.execute(sql`SELECT id FROM inboxes WHERE id = ${inboxId} AND installation_id = ${installationId} AND state = 'active'`);
      if (inbox.rows.length === 0) throw ApiError.invalid('conversation.inbox', `no inbox ${inboxId} here`);
    }
    const inserted = await tx.execute(sql`
      INSERT INTO conversations (installation_id, token, contact_id, inbox_id, contact_form_id, subject, created_by, updated_by)
      VALUES (${installationId}, ${newConversationToken()}, ${contactId}, ${inboxId}, ${widget ? caller.contactFormId : null},
              ${body.subject ?? null}, ${userId}, ${userId})
      RETURNING id`);
    return inserted.rows[0]!.id as number;
  });

  const who: Principal = widget ? { installationId, userId: 0, role: 'owner' } : caller.principal;
  const result = (await selectOne(c.var.db.http, conversationsResource, conversationId, { who, includes: [] }))!;
  const record = result.records[0]!;
  return c.json({ conversation: { ...record, ...roomAddress(c, record.token as string) }, included: {} }, 201);
}

/**
 * `POST /v2/conversations.json`: a conversation and its room. Registered before the API-key
 * middleware because the chat widget may call it with a contact form's token.
 */
export function createConversationRoute(app: Hono<AppEnv>): void {
  addRoute(app, {
    method: 'post',
    path: '/v2/conversations.json',
    tag: 'conversations',
    summary: 'Start a conversation (an agent\'s credential, or a live-chat contact form\'s token); answers its token and room address',
    body: { schema: createBody, required: true },
    responses: {
      201: { description: 'the conversation, with `token`, `socketUrl` and `socketId`' },
      ...Object.fromEntries([400, 401, 403, 413, 415].map((status) => [status, { description: 'error', schema: errorBodySchema }])),
    },
  }, createConversation);
}
