import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { auditColumns, sharedAuditColumns } from './audit';
import { inboxes } from './inboxes';

/** The words tickets are described with: tags, statuses, priorities, types, sources, and spam lists. */

/** Names are unique per installation among live records, ignoring case. */
const liveNameKey = (name: string, t: { installationId: AnyPgColumn; name: AnyPgColumn; state: AnyPgColumn }) =>
  uniqueIndex(name)
    .on(t.installationId, sql`lower(${t.name})`)
    .where(sql`${t.state} = 'active'`);

export const tags = pgTable(
  'tags',
  {
    ...auditColumns(),
    name: text('name').notNull(),
    color: text('color').notNull().default('#9e9e9e'),
  },
  (t) => [liveNameKey('tags_installation_name_key', t)],
);

/** What a status means to the system; a custom status has one of them too. */
export const TICKET_STATUS_CODES = ['active', 'waiting', 'onhold', 'solved', 'closed', 'spam'] as const;

/**
 * The platform's six statuses (ids 1, 3 to 7) are rows without an installation, shared by every
 * installation and changed by none; an installation's own statuses (`is_custom`) have ids from 100 up.
 */
export const ticketStatuses = pgTable(
  'ticket_statuses',
  {
    ...sharedAuditColumns(),
    code: text('code', { enum: TICKET_STATUS_CODES }).notNull().default('active'),
    name: text('name').notNull(),
    color: text('color').notNull().default('#9e9e9e'),
    icon: text('icon').notNull().default(''),
    displayOrder: integer('display_order').notNull().default(0),
    isCustom: boolean('is_custom').notNull().default(true),
  },
  (t) => [liveNameKey('ticket_statuses_installation_name_key', t)],
);

export const ticketPriorities = pgTable(
  'ticket_priorities',
  {
    ...auditColumns(),
    name: text('name').notNull(),
    color: text('color').notNull().default('#9e9e9e'),
    displayOrder: integer('display_order').notNull().default(0),
  },
  (t) => [liveNameKey('ticket_priorities_installation_name_key', t)],
);

export const ticketTypes = pgTable(
  'ticket_types',
  {
    ...auditColumns(),
    name: text('name').notNull(),
    displayOrder: integer('display_order').notNull().default(0),
    /** the type of new tickets that name none; at most one live per installation */
    isDefault: boolean('is_default').notNull().default(false),
    /** inboxes made later are added to `inboxes` */
    enabledForFutureInboxes: boolean('enabled_for_future_inboxes').notNull().default(true),
  },
  (t) => [
    liveNameKey('ticket_types_installation_name_key', t),
    uniqueIndex('ticket_types_one_default')
      .on(t.installationId)
      .where(sql`${t.isDefault} AND ${t.state} = 'active'`),
  ],
);

/** The inboxes a ticket type is limited to; none: every inbox. */
export const ticketTypeInboxes = pgTable(
  'ticket_type_inboxes',
  {
    installationId: integer('installation_id').notNull(),
    ticketTypeId: integer('ticket_type_id')
      .notNull()
      .references(() => ticketTypes.id),
    inboxId: integer('inbox_id')
      .notNull()
      .references(() => inboxes.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
  },
  (t) => [primaryKey({ columns: [t.ticketTypeId, t.inboxId] }), index('ticket_type_inboxes_inbox_idx').on(t.inboxId)],
);

export const ticketSources = pgTable(
  'ticket_sources',
  {
    ...auditColumns(),
    name: text('name').notNull(),
    icon: text('icon').notNull().default(''),
    displayOrder: integer('display_order').notNull().default(0),
    /** false: one of the platform's channels, which cannot be deleted */
    isCustom: boolean('is_custom').notNull().default(true),
  },
  (t) => [liveNameKey('ticket_sources_installation_name_key', t)],
);

export const SPAM_LIST_TYPES = ['whitelist', 'blacklist'] as const;

/** Senders let through or refused: an email address, a domain or an IP address, one entry a term. */
export const spamLists = pgTable(
  'spam_lists',
  {
    ...auditColumns(),
    term: text('term').notNull(),
    listType: text('list_type', { enum: SPAM_LIST_TYPES }).notNull(),
  },
  (t) => [
    uniqueIndex('spam_lists_installation_term_key')
      .on(t.installationId, sql`lower(${t.term})`)
      .where(sql`${t.state} = 'active'`),
  ],
);
