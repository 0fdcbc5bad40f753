import { sql } from 'drizzle-orm';
import { type AnyPgColumn, boolean, check, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';
import { businessHours } from './business-hours';
import { companies } from './companies';
import { customers } from './customers';
import { users } from './identity';
import { inboxes } from './inboxes';
import { tags, ticketPriorities, ticketTypes } from './vocabulary';

/** How a scope entry of a policy compares: the ticket's value is (`eq`) or is not (`ne`) the record. */
export const SLA_CONDITION_OPTIONS = ['eq', 'ne'] as const;
/** The targets a policy sets, as its notifications name them. */
export const SLA_TARGETS = ['firstResponse', 'replyTime', 'resolutionTime'] as const;
/** Where a ticket's target stands: running, inside its warning time, stopped with the clocks, reached in time, or not. */
export const SLA_TARGET_STATES = ['pending', 'warning', 'paused', 'met', 'breached'] as const;
/** When a notification is sent: before a target is due, or once it is breached. */
export const SLA_NOTIFICATION_CONDITIONS = ['warning', 'breach'] as const;

/** A service-level policy: which tickets it covers (its scopes), its targets per priority, its notifications. */
export const slas = pgTable(
  'slas',
  {
    ...auditColumns(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    displayOrder: integer('display_order').notNull().default(0),
    enabled: boolean('enabled').notNull().default(true),
    /** the working hours its clocks run in; null: calendar time */
    businesshoursId: integer('businesshours_id').references(() => businessHours.id),
  },
  (t) => [
    uniqueIndex('slas_installation_name_key')
      .on(t.installationId, sql`lower(${t.name})`)
      .where(sql`${t.state} = 'active'`),
  ],
);

/** One scope entry of a policy: a record of `target` the ticket's value is (`eq`) or is not (`ne`). */
function scopeTable<N extends string>(name: N, column: string, target: () => AnyPgColumn) {
  return pgTable(
    name,
    {
      ...auditColumns(),
      slaId: integer('sla_id')
        .notNull()
        .references(() => slas.id),
      recordId: integer(column).notNull().references(target),
      conditionOption: text('condition_option', { enum: SLA_CONDITION_OPTIONS }).notNull().default('eq'),
    },
    (t) => [
      index(`${name}_sla_idx`).on(t.slaId),
      check(`${name}_condition_option_check`, sql`${t.conditionOption} IN ('eq', 'ne')`),
    ],
  );
}

export const slaCustomers = scopeTable('sla_customers', 'customer_id', () => customers.id);
export const slaCompanies = scopeTable('sla_companies', 'company_id', () => companies.id);
export const slaInboxes = scopeTable('sla_inboxes', 'inbox_id', () => inboxes.id);
export const slaTicketTypes = scopeTable('sla_ticket_types', 'ticket_type_id', () => ticketTypes.id);
export const slaTags = scopeTable('sla_tags', 'tag_id', () => tags.id);

/**
 * A policy's targets for tickets of one priority (none: no priority), in minutes of its clock:
 * `hours` and `minutes` are the first response (the platform's one time); the next reply and the
 * resolution are ours, null for no target.
 */
export const slaTicketPriorities = pgTable(
  'sla_ticket_priorities',
  {
    ...auditColumns(),
    slaId: integer('sla_id')
      .notNull()
      .references(() => slas.id),
    priorityId: integer('priority_id').references(() => ticketPriorities.id),
    hours: integer('hours').notNull().default(0),
    minutes: integer('minutes').notNull().default(0),
    replyTimeMinutes: integer('reply_time_minutes'),
    resolutionTimeMinutes: integer('resolution_time_minutes'),
    description: text('description').notNull().default(''),
  },
  (t) => [
    index('sla_ticket_priorities_sla_idx').on(t.slaId),
    uniqueIndex('sla_ticket_priorities_sla_priority_key')
      .on(t.slaId, sql`coalesce(${t.priorityId}, 0)`)
      .where(sql`${t.state} = 'active'`),
  ],
);

/** Who is told, and when: `duration` minutes before a target is due (warning) or after it is breached (breach). */
export const slaNotifications = pgTable(
  'sla_notifications',
  {
    ...auditColumns(),
    slaId: integer('sla_id')
      .notNull()
      .references(() => slas.id),
    condition: text('condition', { enum: SLA_NOTIFICATION_CONDITIONS }).notNull(),
    type: text('type', { enum: SLA_TARGETS }).notNull(),
    duration: integer('duration').notNull().default(0),
    userId: integer('user_id').references(() => users.id),
    notifyAssignedUser: boolean('notify_assigned_user').notNull().default(false),
  },
  (t) => [index('sla_notifications_sla_idx').on(t.slaId)],
);
