import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';
import { users } from './identity';

export const SMTP_SECURITY = ['none', 'ssl', 'starttls'] as const;

/** A mailbox or channel tickets arrive through, and the address replies leave from. */
export const inboxes = pgTable(
  'inboxes',
  {
    ...auditColumns(),
    name: text('name').notNull(),
    email: text('email'),
    /** the part before the @ of its address at the installation's mail domain */
    localPart: text('local_part'),
    /** more addresses it receives mail at (lowercase): the team's other addresses, routed or forwarded here */
    aliases: text('aliases')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** the status of its new tickets (`ticketstatus`); null: active */
    ticketStatusId: integer('ticket_status_id'),
    signature: text('signature'),
    autoReplyEnabled: boolean('auto_reply_enabled').notNull().default(false),
    autoReplySubject: text('auto_reply_subject'),
    autoReplyMessage: text('auto_reply_message'),
    displayOrder: integer('display_order').notNull().default(0),
    languageCode: text('language_code').notNull().default('en'),
    spamThreshold: integer('spam_threshold').notNull().default(5),
    /** days after closing during which a customer's reply reopens a ticket instead of starting a new one */
    onClosedWait: integer('on_closed_wait').notNull().default(7),
    happinessRatingEnabled: boolean('happiness_rating_enabled').notNull().default(false),
    happinessRatingMessage: text('happiness_rating_message'),
    /** the team's own mail server, when replies do not leave through ours */
    smtpServer: text('smtp_server'),
    smtpPort: integer('smtp_port'),
    smtpUsername: text('smtp_username'),
    /** AES-GCM under PM_TOKEN_KEY, bound to the installation (`src/lib/crypto`); never read out */
    smtpPasswordCiphertext: text('smtp_password_ciphertext'),
    smtpSecurity: text('smtp_security', { enum: SMTP_SECURITY }),
    smtpProvider: text('smtp_provider'),
    sendEmailsFrom: text('send_emails_from'),
  },
  (t) => [
    uniqueIndex('inboxes_installation_email_key')
      .on(t.installationId, sql`lower(${t.email})`)
      .where(sql`${t.state} = 'active' AND ${t.email} IS NOT NULL`),
    uniqueIndex('inboxes_installation_local_part_key')
      .on(t.installationId, sql`lower(${t.localPart})`)
      .where(sql`${t.state} = 'active' AND ${t.localPart} IS NOT NULL`),
    check('inboxes_smtp_port_needs_server', sql`${t.smtpPort} IS NULL OR ${t.smtpServer} IS NOT NULL`),
    // mail in looks an address up among every inbox's aliases
    index('inboxes_aliases_idx').using('gin', t.aliases),
  ],
);

export const INBOX_ACCESS = ['full', 'restricted'] as const;

/** The teammates of an inbox (`users`), each with its access: `full` works every ticket, `restricted` only those assigned to them. */
export const inboxUsers = pgTable(
  'inbox_users',
  {
    installationId: integer('installation_id').notNull(),
    inboxId: integer('inbox_id')
      .notNull()
      .references(() => inboxes.id),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    access: text('access', { enum: INBOX_ACCESS }).notNull().default('full'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
  },
  (t) => [primaryKey({ columns: [t.inboxId, t.userId] }), index('inbox_users_user_idx').on(t.userId)],
);
