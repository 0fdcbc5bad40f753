import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  boolean,
  customType,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';
import { files } from './files';
import { helpdocArticles } from './help-docs';
import { customers } from './customers';
import { EDIT_METHODS, users } from './identity';
import { inboxes } from './inboxes';
import { tags, ticketPriorities, ticketSources, ticketStatuses, ticketTypes } from './vocabulary';
import { SLA_TARGET_STATES, slas } from './slas';

/** Postgres full-text search's document type. */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/** A customer's request and its conversation: the heart of the helpdesk. */
export const tickets = pgTable(
  'tickets',
  {
    ...auditColumns(),
    subject: text('subject').notNull(),
    inboxId: integer('inbox_id')
      .notNull()
      .references(() => inboxes.id),
    customerId: integer('customer_id')
      .notNull()
      .references(() => customers.id),
    /** the teammate working it; null: unassigned */
    agentId: integer('agent_id').references(() => users.id),
    statusId: integer('status_id')
      .notNull()
      .default(1)
      .references(() => ticketStatuses.id),
    priorityId: integer('priority_id').references(() => ticketPriorities.id),
    typeId: integer('type_id').references(() => ticketTypes.id),
    sourceId: integer('source_id').references(() => ticketSources.id),
    cc: text('cc')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    bcc: text('bcc')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    notifyCustomer: boolean('notify_customer').notNull().default(true),
    /** the address the first message was sent to */
    originalRecipient: text('original_recipient'),
    imagesHidden: boolean('images_hidden').notNull().default(false),
    spamScore: real('spam_score'),
    happinessSurveySentAt: timestamp('happiness_survey_sent_at', { withTimezone: true, precision: 3 }),
    /** the ticket this one was merged into */
    mergedIntoId: integer('merged_into_id').references((): AnyPgColumn => tickets.id),
    /** the ticket this one was split from (`fromThreadId`) */
    parentId: integer('parent_id').references((): AnyPgColumn => tickets.id),
    /** the plain text start of the latest thread entry that is not a note */
    previewText: text('preview_text').notNull().default(''),
    lastMessageAt: timestamp('last_message_at', { withTimezone: true, precision: 3 }),
    /** the first agent reply's time, and working minutes to it (`record-ticket-timings.subscriber.ts`) */
    firstResponseAt: timestamp('first_response_at', { withTimezone: true, precision: 3 }),
    responseTimeMins: integer('response_time_mins'),
    /** the last move to solved or closed, and working minutes from creation to it; cleared on reopening */
    resolvedAt: timestamp('resolved_at', { withTimezone: true, precision: 3 }),
    resolutionTimeMins: integer('resolution_time_mins'),
    /** what search matches: subject (weight A), customer (B), thread (C); kept by `ticket-search.ts` */
    searchVector: tsvector('search_vector'),
    /** characters of thread text in `searchVector` (each entry with a space before it); NULL: not counted yet, the next entry rewrites the document */
    searchThreadChars: integer('search_thread_chars'),
    /** the SLA policy that applies (`src/resources/slas/`); its targets' due times and states, kept by `sla-clock.ts` */
    slaId: integer('sla_id').references(() => slas.id),
    slaFirstResponseDueAt: timestamp('sla_first_response_due_at', { withTimezone: true, precision: 3 }),
    slaFirstResponseStatus: text('sla_first_response_status', { enum: SLA_TARGET_STATES }),
    slaNextReplyDueAt: timestamp('sla_next_reply_due_at', { withTimezone: true, precision: 3 }),
    slaNextReplyStatus: text('sla_next_reply_status', { enum: SLA_TARGET_STATES }),
    slaResolutionDueAt: timestamp('sla_resolution_due_at', { withTimezone: true, precision: 3 }),
    slaResolutionStatus: text('sla_resolution_status', { enum: SLA_TARGET_STATES }),
    /** some target of the policy is breached */
    slaBreached: boolean('sla_breached').notNull().default(false),
    /** the clocks stopped at (the ticket waits on the customer, or is solved); null: running */
    slaPausedSince: timestamp('sla_paused_since', { withTimezone: true, precision: 3 }),
    /** clock minutes the clocks stood still, in pauses that ended */
    slaPausedMinutes: doublePrecision('sla_paused_minutes').notNull().default(0),
    /** the customer message the next reply answers; null: none awaits one */
    slaNextReplySince: timestamp('sla_next_reply_since', { withTimezone: true, precision: 3 }),
    /** `slaPausedMinutes` when that message came (pauses after it extend its due time) */
    slaNextReplyPausedBase: doublePrecision('sla_next_reply_paused_base').notNull().default(0),
    /** when the cron must look again (a warning or a breach falls due); null: nothing running */
    slaCheckAt: timestamp('sla_check_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [
    index('tickets_status_idx').on(t.installationId, t.statusId, t.id),
    index('tickets_inbox_idx').on(t.installationId, t.inboxId, t.id),
    index('tickets_customer_idx').on(t.installationId, t.customerId),
    index('tickets_agent_idx').on(t.installationId, t.agentId),
    index('tickets_updated_idx').on(t.installationId, t.updatedAt, t.id),
    index('tickets_search_idx').using('gin', t.searchVector),
    // the filtered list of an inbox's tickets in a status (the benchmark's), its page and its count from the index
    index('tickets_inbox_status_idx')
      .on(t.installationId, t.inboxId, t.statusId, t.id)
      .where(sql`state = 'active'`),
    // the cron's SLA look: tickets whose warning or breach falls due
    index('tickets_sla_check_idx')
      .on(t.slaCheckAt)
      .where(sql`sla_check_at IS NOT NULL`),
  ],
);

export const THREAD_TYPES = ['message', 'note', 'forward'] as const;
/** A thread entry's mail to the customer: `outbound_mails.status`. */
export const EMAIL_STATES = ['queued', 'sent', 'failed'] as const;

/** A ticket's thread entry: a message to or from the customer, an internal note, a forward. */
export const ticketMessages = pgTable(
  'ticket_messages',
  {
    ...auditColumns(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id),
    threadType: text('thread_type', { enum: THREAD_TYPES }).notNull().default('message'),
    /** sanitized HTML (`src/lib/html/message-body.ts`) */
    htmlBody: text('html_body').notNull().default(''),
    textBody: text('text_body').notNull().default(''),
    editMethod: text('edit_method', { enum: EDIT_METHODS }).notNull().default('html'),
    /** the customer who wrote it; null: a teammate (`created_by`) */
    customerId: integer('customer_id').references(() => customers.id),
    cc: text('cc')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    bcc: text('bcc')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    isPinned: boolean('is_pinned').notNull().default(false),
    isDraft: boolean('is_draft').notNull().default(false),
    viewedByCustomerAt: timestamp('viewed_by_customer_at', { withTimezone: true, precision: 3 }),
    /** the `Message-ID` of the mail it came in as or went out as, without angle brackets: mail in reply to it threads here */
    emailMessageId: text('email_message_id'),
    /** a reply mailed to the customer (`outbound_mails`): queued, sent or failed; null: not mailed (a note, the customer's own, no address) */
    emailStatus: text('email_status', { enum: EMAIL_STATES }),
    /** why mailing it failed */
    emailError: text('email_error'),
    /** the AI draft a teammate's reply was sent from (`aiDraft` in the body): metered once in the `replies` stream */
    aiDraftId: integer('ai_draft_id').references((): AnyPgColumn => aiDrafts.id),
    /** how closely the reply kept to that draft, 0 to 100 (`src/lib/text-similarity`); written by the `aidrafts.similarity` subscriber */
    aiSimilarity: real('ai_similarity'),
  },
  (t) => [
    index('ticket_messages_ticket_idx').on(t.ticketId, t.id),
    uniqueIndex('ticket_messages_email_message_id_key')
      .on(t.installationId, t.emailMessageId)
      .where(sql`${t.emailMessageId} IS NOT NULL`),
    // `/v2/ai/stats.json`: an installation's replies sent from AI drafts in a period
    index('ticket_messages_ai_draft_idx')
      .on(t.installationId, t.createdAt)
      .where(sql`${t.aiDraftId} IS NOT NULL`),
  ],
);

export const ticketTags = pgTable(
  'ticket_tags',
  {
    installationId: integer('installation_id').notNull(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id),
    tagId: integer('tag_id')
      .notNull()
      .references(() => tags.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
  },
  (t) => [primaryKey({ columns: [t.ticketId, t.tagId] }), index('ticket_tags_tag_idx').on(t.tagId)],
);

/** Help-docs articles linked to a ticket (its `helpdocarticles`): what answered it, or what to send. */
export const ticketHelpdocArticles = pgTable(
  'ticket_helpdoc_articles',
  {
    installationId: integer('installation_id').notNull(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id),
    articleId: integer('article_id')
      .notNull()
      .references(() => helpdocArticles.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
  },
  (t) => [
    primaryKey({ columns: [t.ticketId, t.articleId] }),
    index('ticket_helpdoc_articles_article_idx').on(t.articleId),
  ],
);

/** Teammates who follow a ticket: told of its changes; a collaborator sees the tickets it follows. */
export const ticketFollowers = pgTable(
  'ticket_followers',
  {
    installationId: integer('installation_id').notNull(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
  },
  (t) => [primaryKey({ columns: [t.ticketId, t.userId] }), index('ticket_followers_user_idx').on(t.userId)],
);

/**
 * An earlier body of a thread entry, kept when the entry is edited (`PUT /v2/messages/{id}.json`):
 * `createdAt` is when it was replaced and `createdBy` who replaced it.
 */
export const ticketMessageRevisions = pgTable(
  'ticket_message_revisions',
  {
    ...auditColumns(),
    messageId: integer('message_id')
      .notNull()
      .references(() => ticketMessages.id),
    htmlBody: text('html_body').notNull(),
    textBody: text('text_body').notNull(),
    editMethod: text('edit_method', { enum: EDIT_METHODS }).notNull(),
  },
  (t) => [index('ticket_message_revisions_message_idx').on(t.messageId, t.id)],
);

/**
 * What happened to a ticket: one row a change, made from the write events by the
 * `tickets.activities` subscriber (kept when the events are long gone). `createdAt` is when the
 * change happened and `createdBy` who made it (null: the system, named in `actorSystem`).
 */
export const ticketActivities = pgTable(
  'ticket_activities',
  {
    ...auditColumns(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id),
    /** the event it was made from: an event makes each of its activities once */
    eventId: bigint('event_id', { mode: 'number' }).notNull(),
    /** `ticket.status`, `ticket.assigned`, `ticket.agent.reply`, ... (docs/resources/ticketactivities.md) */
    eventType: text('event_type').notNull(),
    /** the ticket's inbox then; `oldInboxId` the one it left (`ticket.moved`) */
    inboxId: integer('inbox_id'),
    oldInboxId: integer('old_inbox_id'),
    statusId: integer('status_id'),
    targetAgentId: integer('target_agent_id'),
    /** the thread entry it is about (a reply, a note, an edit) */
    messageId: integer('message_id'),
    /** the other ticket of a merge or a split */
    otherTicketId: integer('other_ticket_id'),
    actorSystem: text('actor_system'),
    /** what changed: `{"status": {"before": ..., "after": ...}}`, `{"tag": {"id", "type"}}` */
    changes: jsonb('changes').notNull().default({}),
  },
  (t) => [
    uniqueIndex('ticket_activities_event_key').on(t.eventId, t.eventType),
    index('ticket_activities_ticket_idx').on(t.ticketId, t.id),
  ],
);

/** The files attached to a thread entry (a ticket's files are its entries'). */
export const ticketMessageFiles = pgTable(
  'ticket_message_files',
  {
    installationId: integer('installation_id').notNull(),
    messageId: integer('message_id')
      .notNull()
      .references(() => ticketMessages.id),
    fileId: integer('file_id')
      .notNull()
      .references(() => files.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.fileId] }), index('ticket_message_files_file_idx').on(t.fileId)],
);

/** When a teammate last read a ticket: it is read for them while no thread entry came after (`isRead`). */
export const ticketReads = pgTable(
  'ticket_reads',
  {
    installationId: integer('installation_id').notNull(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    readAt: timestamp('read_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.ticketId, t.userId] })],
);

/** The teammates a thread entry mentions (`mentions` of a reply or note): they follow the ticket from then on. */
export const ticketMessageMentions = pgTable(
  'ticket_message_mentions',
  {
    installationId: integer('installation_id').notNull(),
    messageId: integer('message_id')
      .notNull()
      .references(() => ticketMessages.id),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.userId] }), index('ticket_message_mentions_user_idx').on(t.userId)],
);

export const AI_DRAFT_TONES = ['friendly', 'formal', 'concise'] as const;

/**
 * A reply the AI drafted for a ticket (`POST /v2/tickets/{id}/aidrafts.json`, docs/ai.md): never
 * sent by itself; a teammate's reply that names it (`aiDraft`) is what the add-on bills.
 */
export const aiDrafts = pgTable(
  'ai_drafts',
  {
    ...auditColumns(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id),
    /** the customer's entry it answers: the latest when it was drafted */
    replyToId: integer('reply_to_id').references((): AnyPgColumn => ticketMessages.id),
    /** sanitized HTML, as a reply's `message` */
    htmlBody: text('html_body').notNull(),
    textBody: text('text_body').notNull(),
    /** the help-doc articles the draft cites, in the order cited */
    sources: integer('sources')
      .array()
      .notNull()
      .default(sql`'{}'::integer[]`),
    model: text('model').notNull(),
    instructions: text('instructions'),
    tone: text('tone', { enum: AI_DRAFT_TONES }),
  },
  (t) => [index('ai_drafts_ticket_idx').on(t.ticketId, t.id)],
);
