import { index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';

export const ANOMALY_STATUSES = ['open', 'cleared'] as const;

/** Something unusual the scheduled scan noticed (a burst of conversations, AI usage jumping). */
export const anomalies = pgTable(
  'anomalies',
  {
    ...auditColumns(),
    name: text('name').notNull(),
    details: jsonb('details'),
    customerId: integer('customer_id'),
    inboxId: integer('inbox_id'),
    userId: integer('user_id'),
    detectedAt: timestamp('detected_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    status: text('status', { enum: ANOMALY_STATUSES }).notNull().default('open'),
    clearedAt: timestamp('cleared_at', { withTimezone: true, precision: 3 }),
    clearedBy: integer('cleared_by'),
    clearNote: text('clear_note'),
  },
  (t) => [index('anomalies_installation_status_idx').on(t.installationId, t.status)],
);
