import { sql } from 'drizzle-orm';
import { bigint, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';
import { tickets } from './tickets';

/**
 * An installation's link to the project-management product (company sync, rule 3): where it
 * is and the token to reach it. The token must be sent, so it cannot be hashed like our own
 * keys; it is stored encrypted (see docs/resources/pmsync.md).
 */
export const pmConnections = pgTable(
  'pm_connections',
  {
    ...auditColumns(),
    baseUrl: text('base_url').notNull(),
    tokenCiphertext: text('token_ciphertext').notNull(),
    lastSyncedAt: timestamp('last_synced_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [uniqueIndex('pm_connections_installation').on(t.installationId)],
);

/** Which remote record a local company or customer is, in the project-management product. */
export const pmLinks = pgTable(
  'pm_links',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    installationId: integer('installation_id').notNull(),
    localType: text('local_type', { enum: ['companies', 'customers'] }).notNull(),
    localId: integer('local_id').notNull(),
    remoteId: text('remote_id').notNull(),
    syncedAt: timestamp('synced_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('pm_links_local').on(t.installationId, t.localType, t.localId)],
);

/**
 * A project-management task linked to a ticket (`POST /v2/tickets/{id}/tasks/{taskId}.json`):
 * the product's task id (an integer there) with its name and address as the product answered
 * them when it was linked. Unlinking deletes the row (soft); one live link per ticket and task.
 */
export const ticketTasks = pgTable(
  'ticket_tasks',
  {
    ...auditColumns(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id),
    taskId: bigint('task_id', { mode: 'number' }).notNull(),
    name: text('name').notNull(),
    url: text('url'),
  },
  (t) => [
    uniqueIndex('ticket_tasks_live')
      .on(t.ticketId, t.taskId)
      .where(sql`state = 'active'`),
  ],
);
