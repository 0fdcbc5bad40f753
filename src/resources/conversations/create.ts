import { sql } from 'drizzle-orm';
import type { Env } from '../../app-env';
import { z } from 'zod';
import { systemActor, type Actor } from '../../auth/principal';
import type { Transaction } from '../../db/client';
import { referenceInput, schemasOf, selectOne } from '../../engine';
import { changeWithEvents, noteEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idValue } from '../../http/params';
import { bodyObject, recordBody, writableRecord } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { callerOf, identifyConversationCaller, type ConversationCaller } from './conversation-caller';
import { newConversationToken } from './conversation-token';
import { conversationsResource } from './conversations.resource';
import { roomAddress } from './room-address';
import { askForEmailProof } from '../contacts/email-proof';
import { customerOfEmail } from '../tickets/ticket-customer';
import { queueSends } from '../mail/outbound/queue-mail';
import { errorField, log } from '../../lib/log';

const createRecord = writableRecord(
  {
    contactId: idValue.optional(),
    contact: bodyObject({ name: z.string().trim().min(1).max(255), email: z.email().max(254).optional() }).optional(),
    subject: z.string().trim().max(255).nullable().optional(),
    inbox: referenceInput('inboxes').nullable().optional(),
  },
  ['token', 'status', 'lastMessageAt', 'contactForm', 'ticket_id', 'socketUrl', 'socketId'],
)
  .refine((body) => (body.contactId === undefined) !== (body.contact === undefined), {
    message: 'name the contact: either contactId, or contact with its name (and email)',
    path: ['contact'],
  })
  .meta({ id: 'ConversationCreate' });

type CreateRecord = z.output<typeof createRecord>;

/**
 * The contact of the new conversation: the one named, or a new one. A teammate's new contact is
 * linked to the customer of its email at once; a widget visitor's is not (anyone can type an
 * email): it is mailed a proof link instead (`contacts/email-proof.ts`). Answers the contact and
 * the proof mail to queue, if one was written.
 */
async function contactFor(tx: Transaction, env: Env, who: Actor, body: CreateRecord, proof: { inboxId: number | null } | undefined): Promise<{ contactId: number; proofMail?: number }> {
  const installationId = who.installationId;
  if (body.contactId !== undefined) {
    const found = await tx.execute(sql`SELECT id FROM contacts WHERE id = ${body.contactId} AND installation_id = ${installationId} AND state = 'active'`);
    if (found.rows.length === 0) throw ApiError.invalid('conversation.contactId', `no contact ${body.contactId} here`);
    return { contactId: body.contactId };
  }
  const { name, email } = body.contact!;
  const linked = proof || !email ? sql`NULL` : customerOfEmail(installationId, email);
  const [contactId] = await changeWithEvents(tx, sql`
    INSERT INTO contacts (installation_id, name, email, customer_id) VALUES (${installationId}, ${name}, ${email ?? null}, ${linked})
    RETURNING id`, who, 'contacts', 'created');
  const proofMail = proof && email ? await askForEmailProof(tx, env, who, { id: contactId!, email }, proof.inboxId) : undefined;
  return { contactId: contactId!, proofMail };
}

const s = schemasOf(conversationsResource);
const room = { socketUrl: z.string().meta({ description: 'the WebSocket address of the room' }), socketId: z.string().meta({ description: "the room's id" }) };
const createdBody = z
  .object({ conversation: s.record.extend(room), included: z.object({}) })
  .meta({ id: 'ConversationCreatedBody' });

/**
 * `POST /v2/conversations.json`: a conversation and its room. Public, as the route checks the
 * caller itself: an agent's credential, or the chat widget's contact form token (docs/widget.md).
 * A widget's conversation is written by the system for the visitor (`widget`).
 */
export const createConversationRoute = defineRoute({
  method: 'post', path: '/v2/conversations.json', tag: 'Conversations', operationId: 'createConversation', public: true,
  summary: "Start a conversation (an agent's credential, or a live-chat contact form's token); answers its token and room address",
  security: [{ bearer: [] }],
  middleware: [identifyConversationCaller],
  request: { body: { required: true, content: { 'application/json': { schema: recordBody('conversation', createRecord) } } } },
  responses: {
    201: jsonResponse('the conversation, with `token`, `socketUrl` and `socketId`', createdBody),
    401: errorResponse('no valid credential or form token'),
    403: errorResponse('the role may not, or the form has live chat off'),
  },
}, async (c) => {
  const caller: ConversationCaller = callerOf(c);
  const body = c.req.valid('json');
  const widget = caller.kind === 'widget';
  if (widget && body.contactId !== undefined) throw ApiError.invalid('conversation.contactId', 'the chat widget names its visitor with contact (name and email)');
  if (widget && body.inbox !== undefined) throw ApiError.invalid('conversation.inbox', "a widget conversation arrives in its contact form's inbox");
  const who: Actor = widget ? systemActor(caller.installationId, 'widget') : caller.principal;

  const { conversationId, proofMail } = await c.var.db.transaction(async (tx) => {
    const { contactId, proofMail } = await contactFor(tx, c.env, who, body, widget ? { inboxId: caller.inboxId } : undefined);
    const inboxId = widget ? caller.inboxId : (body.inbox ?? null);
    if (inboxId !== null && !widget) {
      const inbox = await tx.execute(sql`SELECT id FROM inboxes WHERE id = ${inboxId} AND installation_id = ${who.installationId} AND state = 'active'`);
      if (inbox.rows.length === 0) throw ApiError.invalid('conversation.inbox', `no inbox ${inboxId} here`);
    }
    const [inserted] = await changeWithEvents(tx, sql`
      INSERT INTO conversations (installation_id, token, contact_id, inbox_id, contact_form_id, subject, created_by, updated_by)
      VALUES (${who.installationId}, ${newConversationToken()}, ${contactId}, ${inboxId}, ${widget ? caller.contactFormId : null},
              ${body.subject ?? null}, ${who.userId}, ${who.userId})
      RETURNING id`, who, 'conversations', 'created');
    return { conversationId: inserted!, proofMail };
  });
  noteEvents(c.var.db, who.installationId, [['conversations', 'created'], ['contacts', 'created']]);
  // a proof mail lost here is found by the mail sweep
  if (proofMail !== undefined) await queueSends(c.env, [proofMail]).catch((error: unknown) => log('warn', 'conversations: could not queue a proof mail; the sweep will', { error: errorField(error) }));

  const result = (await selectOne(c.var.db.http, conversationsResource, conversationId, { who, includes: [] }))!;
  const record = result.records[0]!;
  return c.json({ conversation: { ...record, ...roomAddress(c, record.token as string) }, included: {} }, 201);
});
