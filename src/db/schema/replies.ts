import { index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';
import { files } from './files';
import { inboxes } from './inboxes';

/** A saved reply agents insert into conversations; `inbox` limits it to one inbox (null: all). */
export const cannedResponses = pgTable(
  'canned_responses',
  {
    ...auditColumns(),
    name: text('name').notNull(),
    reply: text('reply').notNull(),
    inboxId: integer('inbox_id').references(() => inboxes.id),
  },
  (t) => [index('canned_responses_installation_idx').on(t.installationId, t.id)],
);

export const cannedResponseFiles = pgTable(
  'canned_response_files',
  {
    installationId: integer('installation_id').notNull(),
    cannedResponseId: integer('canned_response_id')
      .notNull()
      .references(() => cannedResponses.id),
    fileId: integer('file_id')
      .notNull()
      .references(() => files.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
  },
  (t) => [primaryKey({ columns: [t.cannedResponseId, t.fileId] })],
);
