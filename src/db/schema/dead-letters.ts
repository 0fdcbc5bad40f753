import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * Queue messages whose consumer failed every delivery (src/deadletters): what the dead-letter
 * queues hand over, stored once per message (`queue`, `message_id`), for an operator to read and
 * put back on their queue (`replayed_at`) or set aside (`discarded_at`). `installation_id` is the
 * installation the message names, when it names one (an events drain's `installationId`); the
 * service's bookkeeping, read by operators only, never by an installation's API.
 */
export const deadLetters = pgTable(
  'dead_letters',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    installationId: integer('installation_id'),
    /** the queue it died on (`helpdesk-jobs`, `helpdesk-webhooks`, `helpdesk-mail`): a replay puts it back there */
    queue: text('queue').notNull(),
    /** the platform's id of the message: a dead message delivered twice is stored once */
    messageId: text('message_id').notNull(),
    /** the message's body, as sent */
    body: jsonb('body').notNull(),
    /** its deliveries before it died (the first and the queue's `max_retries`) */
    attempts: integer('attempts').notNull(),
    /** when it was first sent to its queue */
    sentAt: timestamp('sent_at', { withTimezone: true, precision: 3 }).notNull(),
    /** when it was stored here */
    deadAt: timestamp('dead_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    replayedAt: timestamp('replayed_at', { withTimezone: true, precision: 3 }),
    discardedAt: timestamp('discarded_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [
    uniqueIndex('dead_letters_message_key').on(t.queue, t.messageId),
    // what /health counts and an operator lists first: the dead letters nobody has dealt with yet
    index('dead_letters_open_idx')
      .on(t.deadAt)
      .where(sql`${t.replayedAt} IS NULL AND ${t.discardedAt} IS NULL`),
    index('dead_letters_installation_idx').on(t.installationId, t.id),
  ],
);
