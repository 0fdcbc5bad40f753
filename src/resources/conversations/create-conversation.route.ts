import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { systemActor, type Actor } from '../../auth/principal';
import { recalled, refuseWhen, remember } from '../../db/refusal';
import { referenceInput, schemasOf, sendWithReadBack, type WireRecord } from '../../engine';
import { withEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idValue } from '../../http/params';
import { bodyObject, recordBody, writableRecord } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { callerOf, identifyConversationCaller, type ConversationCaller } from './conversation-caller';
import { newConversationToken } from './conversation-token';
import { conversationsResource } from './conversations.resource';
import { roomAddress } from './room-address';
import { customerOfEmail } from '../tickets/ticket-customer';

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

/** The names the batch hands values on by. */
const CONTACT = 'conversation_contact';
const CONVERSATION = 'conversation_id';

/**
 * The contact of the new conversation as statements of the batch: the one named checked (a 400
 * naming `contactId` otherwise), or a new one written with its event. A teammate's new contact is
 * linked to the customer of its email at once; a widget visitor's is not (anyone can type an
 * email): once the conversation is written, it is mailed a proof link instead (`ask-visitor-for-email-proof.subscriber.ts`,
 * `contacts/email-proof.ts`). Answers the statements and the contact's id as SQL.
 */
function contactStatements(who: Actor, body: CreateRecord, widget: boolean): { statements: SQL[]; contactId: SQL } {
  const installationId = who.installationId;
  if (body.contactId !== undefined) {
    return {
      statements: [
        refuseWhen(
          sql`NOT EXISTS (SELECT 1 FROM contacts WHERE id = ${body.contactId} AND installation_id = ${installationId} AND state = 'active')`,
          400,
          'conversation.contactId',
          `no contact ${body.contactId} here`,
        ),
      ],
      contactId: sql`${body.contactId}::int`,
    };
  }
  const { name, email } = body.contact!;
  const linked = widget || !email ? sql`NULL` : customerOfEmail(installationId, email);
  const insert = sql`INSERT INTO contacts (installation_id, name, email, customer_id) VALUES (${installationId}, ${name}, ${email ?? null}, ${linked}) RETURNING id`;
  return {
    statements: [withEvents(insert, who, 'contacts', 'created', undefined, undefined, remember(CONTACT, sql`id`))],
    contactId: recalled(CONTACT),
  };
}

const s = schemasOf(conversationsResource);
const room = {
  socketUrl: z.string().meta({ description: 'the WebSocket address of the room' }),
  socketId: z.string().meta({ description: "the room's id" }),
};
const createdBody = z
  .object({ conversation: s.record.extend(room), included: z.object({}) })
  .meta({ id: 'ConversationCreatedBody' });

/**
 * `POST /v2/conversations.json`: a conversation and its room. Public, as the route checks the
 * caller itself: an agent's credential, or the chat widget's contact form token (docs/widget.md).
 * A widget's conversation is written by the system for the visitor (`widget`).
 */
export const createConversationRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/conversations.json',
    tag: 'Conversations',
    operationId: 'createConversation',
    public: true,
    summary:
      "Start a conversation (an agent's credential, or a live-chat contact form's token); answers its token and room address",
    description:
      "Starts a conversation with its contact (a new one from `contact`, or an existing `contactId`) and answers 201 with its `token`, `socketUrl` and `socketId`, the room's address, on this answer only. It takes `Authorization: Bearer` with an owner's, admin's or agent's credential, or with a contact form's token while the form's live chat is on (403 otherwise); the widget may not name `contactId` or `inbox` (400), and its conversation lands in the form's inbox. A teammate's new contact is linked at once to the customer of its email; a widget visitor's is not, and when a customer has that address it is mailed a link to prove it (`GET /v2/contacts/verify/{token}`). Records `created` events of the conversation and of a new contact. See docs/realtime.md and docs/widget.md.",
    security: [{ bearer: [] }],
    middleware: [identifyConversationCaller],
    request: {
      body: { required: true, content: { 'application/json': { schema: recordBody('conversation', createRecord) } } },
    },
    example: {
      body: {
        conversation: {
          contact: { name: 'Alex Visitor', email: 'alex@visitor.example' },
          subject: 'Question about delivery times',
          inbox: { id: 1 },
        },
      },
    },
    responses: {
      201: jsonResponse('the conversation, with `token`, `socketUrl` and `socketId`', createdBody),
      401: errorResponse('no valid credential or form token'),
      403: errorResponse('the role may not, or the form has live chat off'),
    },
  },
  async (c) => {
    const caller: ConversationCaller = callerOf(c);
    const body = c.req.valid('json');
    const widget = caller.kind === 'widget';
    if (widget && body.contactId !== undefined)
      throw ApiError.invalid(
        'conversation.contactId',
        'the chat widget names its visitor with contact (name and email)',
      );
    if (widget && body.inbox !== undefined)
      throw ApiError.invalid('conversation.inbox', "a widget conversation arrives in its contact form's inbox");
    const who: Actor = widget ? systemActor(caller.installationId, 'widget') : caller.principal;

    // one batch: the contact checked or written, the inbox checked, the conversation written, and read back
    const contact = contactStatements(who, body, widget);
    const inboxId = widget ? caller.inboxId : (body.inbox ?? null);
    const conversation = sql`
    INSERT INTO conversations (installation_id, token, contact_id, inbox_id, contact_form_id, subject, created_by, updated_by)
    VALUES (${who.installationId}, ${newConversationToken()}, ${contact.contactId}, ${inboxId}, ${widget ? caller.contactFormId : null},
            ${body.subject ?? null}, ${who.userId}, ${who.userId})
    RETURNING id`;
    const statements = [
      ...contact.statements,
      inboxId === null || widget
        ? undefined
        : refuseWhen(
            sql`NOT EXISTS (SELECT 1 FROM inboxes WHERE id = ${inboxId} AND installation_id = ${who.installationId} AND state = 'active')`,
            400,
            'conversation.inbox',
            `no inbox ${inboxId} here`,
          ),
      withEvents(conversation, who, 'conversations', 'created', undefined, undefined, remember(CONVERSATION, sql`id`)),
    ];
    const answer = await sendWithReadBack(c.var.db, conversationsResource, who, statements, recalled(CONVERSATION), []);
    if (!answer) throw new Error('the new conversation is not there to read back');
    const record = answer.conversation as WireRecord;
    return c.json({ conversation: { ...record, ...roomAddress(c, record.token as string) }, included: {} }, 201);
  },
);
