import { integer, text, timestamp } from 'drizzle-orm/pg-core';

/** The audit set of the wire conventions, without the installation: for catalogues every installation shares. */
export function globalAuditColumns() {
  return {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    state: text('state', { enum: ['active', 'deleted'] })
      .notNull()
      .default('active'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedBy: integer('updated_by'),
    deletedAt: timestamp('deleted_at', { withTimezone: true, precision: 3 }),
    deletedBy: integer('deleted_by'),
  };
}

/**
 * The columns every tenant-owned record carries: its installation and the audit set of the
 * wire conventions. `createdBy`, `updatedBy` and `deletedBy` are user ids (no foreign key, so a
 * removed user never blocks anything).
 */
export function auditColumns() {
  return {
    ...globalAuditColumns(),
    installationId: integer('installation_id').notNull(),
  };
}

/**
 * The audit set of a table whose rows are an installation's own or shared by every installation:
 * a row with no installation (the platform's ticket statuses) is read by all and written by none.
 */
export function sharedAuditColumns() {
  return {
    ...globalAuditColumns(),
    installationId: integer('installation_id'),
  };
}
