import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';
import { businessHours } from './business-hours';
import { inboxes } from './inboxes';
import { tickets } from './tickets';

/** A trigger is active, inactive, incomplete (it refers to something deleted) or deleted. */
export const TRIGGER_STATES = ['active', 'inactive', 'incomplete', 'deleted'] as const;
export const TRIGGER_TYPES = ['Automatic', 'Manual'] as const;
export const MATCH_REQUIREMENTS = ['ANY', 'ALL'] as const;

/** Automations over tickets (`src/resources/triggers/`): conditions and actions, run on ticket events, by the cron or by hand. */
export const triggers = pgTable(
  'triggers',
  {
    ...auditColumns(),
    state: text('state', { enum: TRIGGER_STATES }).notNull().default('active'),
    name: text('name').notNull(),
    /** the working hours its time conditions count in; null: calendar time */
    businesshoursId: integer('businesshours_id').references(() => businessHours.id),
    description: text('description').notNull().default(''),
    type: text('type', { enum: TRIGGER_TYPES }).notNull().default('Automatic'),
    isShared: boolean('is_shared').notNull().default(true),
    /** the service's own: only switched on or off */
    isSystem: boolean('is_system').notNull().default(false),
    /** which of the service's own it is (`src/resources/triggers/system-triggers.ts`); null for a team's trigger */
    systemKey: text('system_key'),
    agentHasAccess: boolean('agent_has_access').notNull().default(true),
    addToNewInboxes: boolean('add_to_new_inboxes').notNull().default(false),
    displayOrder: integer('display_order').notNull().default(0),
    /** the last ticket the cron looked at for its time conditions; it goes on after it (0: from the first) */
    timeCursor: integer('time_cursor').notNull().default(0),
    /** while it is applied to the tickets there were when it was written (`applyToExistingTickets`): the last ticket the cron applied it to; null: not being applied */
    existingCursor: integer('existing_cursor'),
  },
  (t) => [
    uniqueIndex('triggers_system_key')
      .on(t.installationId, t.systemKey)
      .where(sql`${t.systemKey} IS NOT NULL`),
  ],
);

/** The inboxes a trigger is limited to; none: every inbox. */
export const triggerInboxes = pgTable(
  'trigger_inboxes',
  {
    installationId: integer('installation_id').notNull(),
    triggerId: integer('trigger_id')
      .notNull()
      .references(() => triggers.id),
    inboxId: integer('inbox_id')
      .notNull()
      .references(() => inboxes.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
  },
  (t) => [primaryKey({ columns: [t.triggerId, t.inboxId] }), index('trigger_inboxes_inbox_idx').on(t.inboxId)],
);

/** One condition of a trigger, by the platform's numeric codes (docs/resources/triggers.md). */
export const triggerConditions = pgTable(
  'trigger_conditions',
  {
    ...auditColumns(),
    triggerId: integer('trigger_id')
      .notNull()
      .references(() => triggers.id),
    field: smallint('field').notNull(),
    operator: smallint('operator').notNull(),
    value: text('value').notNull().default(''),
    matchRequirement: text('match_requirement', { enum: MATCH_REQUIREMENTS }).notNull().default('ALL'),
  },
  (t) => [index('trigger_conditions_trigger_idx').on(t.triggerId)],
);

/** One action of a trigger, by its numeric type (docs/resources/triggers.md). */
export const triggerActions = pgTable(
  'trigger_actions',
  {
    ...auditColumns(),
    triggerId: integer('trigger_id')
      .notNull()
      .references(() => triggers.id),
    type: smallint('type').notNull(),
    /** what the action sets or names: an id, ids joined with commas */
    value: text('value').notNull().default(''),
    /** the text of a note or a reply */
    message: text('message').notNull().default(''),
    displayOrder: integer('display_order').notNull().default(0),
  },
  (t) => [index('trigger_actions_trigger_idx').on(t.triggerId)],
);

/** A trigger acted on a ticket: an automatic trigger acts once per ticket. */
export const triggerRuns = pgTable(
  'trigger_runs',
  {
    installationId: integer('installation_id').notNull(),
    triggerId: integer('trigger_id')
      .notNull()
      .references(() => triggers.id),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id),
    /** its place in a chain of triggers set off by one change (1: the change was not a trigger's) */
    depth: smallint('depth').notNull(),
    ranAt: timestamp('ran_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.triggerId, t.ticketId] }), index('trigger_runs_ticket_idx').on(t.ticketId)],
);

/**
 * The events one trigger run wrote (ids after `eventsAfter`, up to `eventsTo`) and its depth in
 * its chain: a trigger set off by one of them runs one level deeper.
 */
export const triggerChainLinks = pgTable(
  'trigger_chain_links',
  {
    installationId: integer('installation_id').notNull(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id),
    eventsAfter: bigint('events_after', { mode: 'number' }).notNull(),
    eventsTo: bigint('events_to', { mode: 'number' }).notNull(),
    depth: smallint('depth').notNull(),
  },
  (t) => [index('trigger_chain_links_ticket_idx').on(t.ticketId, t.eventsTo)],
);
