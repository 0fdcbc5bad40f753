import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';
import { inboxes } from './inboxes';
import { ticketMessages, tickets } from './tickets';

/** What became of a message the `email()` handler took for an inbox (src/resources/mail). */
export const INBOUND_OUTCOMES = ['ticket', 'reply', 'duplicate', 'refused'] as const;

/**
 * Every message received for one of an installation's inboxes, and its outcome: a new ticket, a
 * reply on one, the same message again, or refused (and why). The raw message is kept in R2 under
 * `raw_key` until `raw_expires_at`. Received when `created_at`; each row's `created` event is the outcome's.
 */
export const inboundMails = pgTable(
  'inbound_mails',
  {
    ...auditColumns(),
    inboxId: integer('inbox_id')
      .notNull()
      .references(() => inboxes.id),
    /** the `Message-ID` without angle brackets (made from the message's digest when it has none) */
    messageId: text('message_id').notNull(),
    envelopeFrom: text('envelope_from').notNull(),
    envelopeTo: text('envelope_to').notNull(),
    subject: text('subject').notNull().default(''),
    sizeBytes: integer('size_bytes').notNull(),
    outcome: text('outcome', { enum: INBOUND_OUTCOMES }).notNull(),
    reason: text('reason'),
    ticketId: integer('ticket_id').references(() => tickets.id),
    threadEntryId: integer('thread_entry_id').references(() => ticketMessages.id),
    rawKey: text('raw_key'),
    rawExpiresAt: timestamp('raw_expires_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [
    index('inbound_mails_installation_idx').on(t.installationId, t.id),
    // the per-sender limit's count, on every message
    index('inbound_mails_sender_idx').on(t.inboxId, sql`lower(${t.envelopeFrom})`, t.createdAt),
    index('inbound_mails_raw_expiry_idx')
      .on(t.rawExpiresAt)
      .where(sql`${t.rawKey} IS NOT NULL`),
    // one message makes one thread entry: a second delivery of it is a duplicate
    uniqueIndex('inbound_mails_message_key')
      .on(t.installationId, t.messageId)
      .where(sql`${t.outcome} IN ('ticket', 'reply')`),
  ],
);

/**
 * What an outgoing message is: a teammate's reply (or a new ticket's first message) mailed, an
 * inbox's auto-reply, an SLA notification to teammates, or a chat visitor's link proving their
 * email (no ticket).
 */
export const OUTBOUND_KINDS = ['reply', 'autoReply', 'notification', 'verification'] as const;
/** Where an outgoing message stands: queued (to be sent, or sent again after a transient failure), sent, or failed for good. */
export const OUTBOUND_STATES = ['queued', 'sent', 'failed'] as const;

/**
 * Every message the helpdesk mails (src/resources/mail/outbound): composed once, when its
 * thread entry is written (`mail` holds what the send binding takes, attachments by file), sent
 * through the queue, tried again after a transient failure until `MAX_ATTEMPTS`. `message_id` is
 * the `Message-ID` the sender gave it, kept on the thread entry too, so the customer's answer threads.
 */
export const outboundMails = pgTable(
  'outbound_mails',
  {
    ...auditColumns(),
    inboxId: integer('inbox_id')
      .notNull()
      .references(() => inboxes.id),
    /** null: a message of no ticket (a verification link) */
    ticketId: integer('ticket_id').references(() => tickets.id),
    /** the entry it mails; null: an auto-reply, which is not in the thread */
    threadEntryId: integer('thread_entry_id').references(() => ticketMessages.id),
    kind: text('kind', { enum: OUTBOUND_KINDS }).notNull(),
    mail: jsonb('mail').notNull(),
    status: text('status', { enum: OUTBOUND_STATES }).notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, precision: 3 }).defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true, precision: 3 }),
    messageId: text('message_id'),
  },
  (t) => [
    index('outbound_mails_installation_idx').on(t.installationId, t.id),
    // an entry is mailed once, a ticket auto-replied to once: a second event or message for it finds it made
    uniqueIndex('outbound_mails_entry_key')
      .on(t.threadEntryId)
      .where(sql`${t.threadEntryId} IS NOT NULL`),
    uniqueIndex('outbound_mails_auto_reply_key')
      .on(t.ticketId)
      .where(sql`${t.kind} = 'autoReply'`),
    index('outbound_mails_queued_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'queued'`),
  ],
);

/**
 * A domain an installation claims for its inboxes' own addresses (`email`, `aliases`,
 * `sendEmailsFrom` outside the mail domain). It receives and sends only once verified: the
 * installation published `helpdesk-verification=<token>` as a TXT record at
 * `_helpdesk-verification.<name>` and asked us to look. A verified domain belongs to one
 * installation; others may claim it, but never verify it while that one holds it.
 */
export const mailDomains = pgTable(
  'mail_domains',
  {
    ...auditColumns(),
    /** lowercase, without a trailing dot */
    name: text('name').notNull(),
    /** the TXT record's value is `helpdesk-verification=<token>`: random, one per claim */
    verificationToken: text('verification_token').notNull(),
    verifiedAt: timestamp('verified_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [
    uniqueIndex('mail_domains_installation_name_key')
      .on(t.installationId, t.name)
      .where(sql`${t.state} = 'active'`),
    uniqueIndex('mail_domains_verified_name_key')
      .on(t.name)
      .where(sql`${t.state} = 'active' AND ${t.verifiedAt} IS NOT NULL`),
  ],
);
