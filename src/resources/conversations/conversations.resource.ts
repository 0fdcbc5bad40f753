import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { AGENTS, EVERYONE } from '../../auth/access';
import { CONVERSATION_STATUSES, contacts, conversationMessages, conversations, inboxes } from '../../db/schema';
import { contactShape } from '../contacts/contact-shape';
import { customerShape } from '../customers/customer-shape';
import { messageShape } from '../conversationmessages/message-shape';
import { isoTime, refJson, refSchema, timeSchema } from '../../engine';
import { ownedRecords, referencedBy } from '../../engine';
import { referenceField } from '../../engine';
import { defineResource } from '../../engine';
import { idValue } from '../../http/params';
import { teammateWrote } from './teammate-wrote';
import { includedUsers } from '../users/user-shape';

/**
 * A live chat with one contact. Created by `create-conversation.route.ts` (an agent, or the chat widget with a
 * contact form's token); read, listed and updated here (an update is one batch: closed unanswered,
 * it becomes a ticket after, by the drain: `to-ticket.ts`). Its messages arrive through its room.
 */
export const conversationsResource = defineResource({
  type: 'conversations',
  singular: 'conversation',
  title: { one: 'Conversation', many: 'Conversations' },
  table: conversations,
  fields: {
    contactId: { column: conversations.contactId, schema: idValue, references: { table: contacts, type: 'contacts' } },
    subject: { column: conversations.subject, schema: z.string().trim().max(255).nullable() },
    status: { column: conversations.status, schema: z.enum(CONVERSATION_STATUSES) },
    inbox: referenceField(conversations.inboxId, { table: inboxes, type: 'inboxes' }),
    // The spec's name; tickets come later, so any positive id is kept as given.
    ticket_id: { column: conversations.ticketId, schema: idValue.nullable() },
  },
  computed: {
    token: {
      expr: sql`${conversations.token}`,
      type: 'string',
      schema: z.string().meta({ description: "the room's name; opens the history publicly" }),
    },
    contactForm: {
      expr: refJson(conversations.contactFormId, 'contactforms'),
      type: 'integer',
      schema: refSchema('contactforms')
        .nullable()
        .meta({ description: 'the contact form the chat widget started it from; null when an agent did' }),
    },
    awaitingTeammate: {
      expr: sql`EXISTS (SELECT 1 FROM ${conversationMessages} h
        WHERE h.conversation_id = ${conversations.id} AND h.author = 'system' AND h.state = 'active'
          AND NOT EXISTS (SELECT 1 FROM ${conversationMessages} a
            WHERE a.conversation_id = h.conversation_id AND ${teammateWrote(sql`a`)} AND a.sent_at >= h.sent_at))`,
      type: 'boolean',
      schema: z.boolean().meta({
        description:
          'the form\'s AI assistant handed the conversation over and no teammate has written since (docs/ai.md): `filter={"awaitingTeammate":true}` finds the visitors waiting',
      }),
    },
    lastMessageAt: {
      expr: isoTime(conversations.lastMessageAt),
      type: 'datetime',
      schema: timeSchema.nullable().meta({ description: 'null until the first message' }),
    },
  },
  filter: ['awaitingTeammate', 'contactId', 'createdAt', 'deletedAt', 'id', 'state', 'ticket_id', 'token', 'updatedAt'],
  relations: {
    contacts: referencedBy({ target: contactShape, columns: () => [conversations.contactId] }),
    conversationmessages: ownedRecords({ shape: messageShape, parentKey: conversationMessages.conversationId }),
    customers: referencedBy({
      target: customerShape,
      columns: () => [
        sql`(SELECT ${contacts.customerId} FROM ${contacts} WHERE ${contacts.id} = ${conversations.contactId})`,
      ],
    }),
    users: includedUsers(),
  },
  access: { read: EVERYONE, write: AGENTS },
  examples: {
    update: { subject: 'Question about delivery times' },
  },
  operations: ['list', 'get', 'update'],
});
