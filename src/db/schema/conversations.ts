import { sql } from 'drizzle-orm';
import { index, integer, pgTable, primaryKey, real, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';
import { contactForms } from './contact-forms';
import { customers } from './customers';
import { files } from './files';
import { inboxes } from './inboxes';

/**
 * A chat visitor: who writes from the widget. Becomes linked to a customer once known: at once
 * when a teammate names them, only once the visitor proved the email (the link mailed to it,
 * whose token's SHA-256 is kept until used) when they named themselves in the widget.
 */
export const contacts = pgTable(
  'contacts',
  {
    ...auditColumns(),
    name: text('name').notNull().default(''),
    email: text('email'),
    customerId: integer('customer_id').references(() => customers.id),
    emailTokenHash: text('email_token_hash'),
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [
    index('contacts_installation_email_idx').on(t.installationId, sql`lower(${t.email})`),
    uniqueIndex('contacts_email_token_key')
      .on(t.emailTokenHash)
      .where(sql`${t.emailTokenHash} IS NOT NULL`),
  ],
);

export const CONVERSATION_STATUSES = ['open', 'closed'] as const;

/**
 * A live chat. `token` names its realtime room and opens its history publicly, so it is
 * unguessable: 24 random decimal digits (the spec declares the history path parameter an integer).
 */
export const conversations = pgTable(
  'conversations',
  {
    ...auditColumns(),
    token: text('token').notNull(),
    contactId: integer('contact_id').references(() => contacts.id),
    inboxId: integer('inbox_id').references(() => inboxes.id),
    contactFormId: integer('contact_form_id').references(() => contactForms.id),
    ticketId: integer('ticket_id'),
    subject: text('subject'),
    status: text('status', { enum: CONVERSATION_STATUSES }).notNull().default('open'),
    lastMessageAt: timestamp('last_message_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [
    uniqueIndex('conversations_token_key').on(t.token),
    index('conversations_installation_idx').on(t.installationId, t.id),
    index('conversations_installation_created_idx').on(t.installationId, t.createdAt),
  ],
);

export const MESSAGE_AUTHORS = ['contact', 'agent', 'ai', 'system'] as const;

/**
 * One message of a conversation. `clientId` is the id the room gave it when it was accepted:
 * a redelivered event finds it and writes nothing twice. An agent's reply that started from an
 * AI draft keeps the draft and how similar the sent text stayed to it (0 to 100).
 */
export const conversationMessages = pgTable(
  'conversation_messages',
  {
    ...auditColumns(),
    conversationId: integer('conversation_id')
      .notNull()
      .references(() => conversations.id),
    author: text('author', { enum: MESSAGE_AUTHORS }).notNull(),
    contactId: integer('contact_id').references(() => contacts.id),
    userId: integer('user_id'),
    message: text('message').notNull(),
    clientId: text('client_id').notNull(),
    sentAt: timestamp('sent_at', { withTimezone: true, precision: 3 }).notNull(),
    aiDraft: text('ai_draft'),
    aiSimilarity: real('ai_similarity'),
  },
  (t) => [
    uniqueIndex('conversation_messages_client_key').on(t.conversationId, t.clientId),
    index('conversation_messages_conversation_idx').on(t.conversationId, t.id),
    index('conversation_messages_installation_idx').on(t.installationId, t.id),
    index('conversation_messages_installation_sent_idx').on(t.installationId, t.sentAt),
  ],
);

/** Files attached to a message. */
export const conversationMessageFiles = pgTable(
  'conversation_message_files',
  {
    installationId: integer('installation_id').notNull(),
    messageId: integer('message_id')
      .notNull()
      .references(() => conversationMessages.id),
    fileId: integer('file_id')
      .notNull()
      .references(() => files.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.fileId] })],
);
