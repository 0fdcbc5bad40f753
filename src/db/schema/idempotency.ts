import { integer, pgTable, primaryKey, text, timestamp, index } from 'drizzle-orm/pg-core';

/** A key's request: running (its first answer not kept yet) or done (the answer kept, replayed to the same key). */
export const IDEMPOTENCY_STATES = ['running', 'done'] as const;

/**
 * `Idempotency-Key`s (src/idempotency): per installation and teammate, the request a key was
 * first sent with (its digest) and, once answered, the answer, replayed to the same key for 24
 * hours. Swept by the cron after that.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    installationId: integer('installation_id').notNull(),
    userId: integer('user_id').notNull(),
    key: text('key').notNull(),
    /** SHA-256 of the method, the path with its query, and the body */
    requestDigest: text('request_digest').notNull(),
    status: text('status', { enum: IDEMPOTENCY_STATES }).notNull().default('running'),
    responseStatus: integer('response_status'),
    responseType: text('response_type'),
    responseBody: text('response_body'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    /** when the running request took the key: one running longer than a Worker may is taken as dead */
    startedAt: timestamp('started_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.installationId, t.userId, t.key] }),
    index('idempotency_keys_created_idx').on(t.createdAt),
  ],
);
