import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';
import { inboxes } from './inboxes';
import { tickets } from './tickets';

/** What a custom field holds, as the platform names its kinds. */
export const CUSTOM_FIELD_KINDS = ['text', 'textarea', 'number', 'date', 'dropdown', 'checkboxes'] as const;
/** The kinds whose values are options (`custom_field_options`). */
export const CUSTOM_FIELD_OPTION_KINDS: readonly string[] = ['dropdown', 'checkboxes'];

/** A ticket field of the team's own: its labels for teammates and customers, its kind, where it applies. */
export const customFields = pgTable(
  'custom_fields',
  {
    ...auditColumns(),
    agentLabel: text('agent_label').notNull(),
    customerLabel: text('customer_label').notNull().default(''),
    kind: text('kind').notNull(),
    description: text('description').notNull().default(''),
    agentRequired: boolean('agent_required').notNull().default(false),
    customerRequired: boolean('customer_required').notNull().default(false),
    enabled: boolean('enabled').notNull().default(true),
    /** inboxes made later are added to `inboxes` (a field limited to none applies in every inbox already) */
    addToNewInboxes: boolean('add_to_new_inboxes').notNull().default(true),
    displayOrder: integer('display_order').notNull().default(0),
  },
  (t) => [
    uniqueIndex('custom_fields_installation_label_key')
      .on(t.installationId, sql`lower(${t.agentLabel})`)
      .where(sql`${t.state} = 'active'`),
  ],
);

/** The inboxes a custom field is limited to; none: every inbox. */
export const customFieldInboxes = pgTable(
  'custom_field_inboxes',
  {
    installationId: integer('installation_id').notNull(),
    customFieldId: integer('custom_field_id')
      .notNull()
      .references(() => customFields.id),
    inboxId: integer('inbox_id')
      .notNull()
      .references(() => inboxes.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
  },
  (t) => [primaryKey({ columns: [t.customFieldId, t.inboxId] }), index('custom_field_inboxes_inbox_idx').on(t.inboxId)],
);

/** The choices of a dropdown or checkboxes field. */
export const customFieldOptions = pgTable(
  'custom_field_options',
  {
    ...auditColumns(),
    customFieldId: integer('custom_field_id')
      .notNull()
      .references(() => customFields.id),
    name: text('name').notNull(),
    displayOrder: integer('display_order').notNull().default(0),
  },
  (t) => [
    index('custom_field_options_field_idx').on(t.customFieldId),
    uniqueIndex('custom_field_options_field_name_key')
      .on(t.customFieldId, sql`lower(${t.name})`)
      .where(sql`${t.state} = 'active'`),
  ],
);

/**
 * A ticket's value of a custom field, as JSON of the field's kind: a string (text, textarea, a
 * date `YYYY-MM-DD`), a number, an option id (dropdown) or an array of option ids (checkboxes).
 * No row: no value.
 */
export const ticketCustomFieldValues = pgTable(
  'ticket_custom_field_values',
  {
    installationId: integer('installation_id').notNull(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id),
    customFieldId: integer('custom_field_id')
      .notNull()
      .references(() => customFields.id),
    value: jsonb('value').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
  },
  (t) => [
    primaryKey({ columns: [t.ticketId, t.customFieldId] }),
    index('ticket_custom_field_values_field_idx').on(t.customFieldId),
  ],
);
