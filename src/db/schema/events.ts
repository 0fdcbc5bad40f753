import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The transactional outbox: every change made through the engine writes its events here in the
 * same transaction as the change, so a change and its events commit or roll back together. The
 * queue drains them to the modules' subscribers (src/events/); `dispatchedAt` is set once every
 * subscriber has handled the event. Kept for `EVENT_RETENTION_DAYS` after that (docs/events.md).
 */
export const events = pgTable(
  'events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    installationId: integer('installation_id').notNull(),
    /** the changed record's type name (`companies`) and id */
    recordType: text('record_type').notNull(),
    recordId: integer('record_id').notNull(),
    /** created, updated, deleted, linked, unlinked, or a special operation (imported, migrated, installed, ...) */
    kind: text('kind').notNull(),
    /** updated: `{"name": {"before": ..., "after": ...}}`; linked/unlinked: `{"relation", "record"}`; others: details */
    data: jsonb('data').notNull().default({}),
    /** the teammate who made the change; null for the system */
    actorUserId: integer('actor_user_id'),
    /** the part of the system that made it (room, cron, import, widget); null for a teammate */
    actorSystem: text('actor_system'),
    occurredAt: timestamp('occurred_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    dispatchedAt: timestamp('dispatched_at', { withTimezone: true, precision: 3 }),
    /**
     * The transaction that wrote it (its top-level id, savepoints or not): the subscribers handled
     * in the writing transaction find its events by it (src/events/in-transaction.ts). A stable
     * default, so adding the column rewrote no table; events older than it hold the migration's.
     */
    xact: bigint('xact', { mode: 'number' }).default(sql`(pg_current_xact_id()::text::bigint)`),
  },
  (t) => [
    index('events_record_idx').on(t.installationId, t.recordType, t.recordId, t.id),
    // What the drain and the sweep look for: events not yet handled by every subscriber.
    index('events_pending_idx')
      .on(t.installationId, t.id)
      .where(sql`${t.dispatchedAt} IS NULL`),
    index('events_dispatched_idx')
      .on(t.dispatchedAt)
      .where(sql`${t.dispatchedAt} IS NOT NULL`),
    index('events_pending_xact_idx')
      .on(t.xact)
      .where(sql`${t.dispatchedAt} IS NULL`),
  ],
);

/**
 * What each subscriber has done with each event: handled (its effect happened, in the same
 * transaction as this row where the effect is in the database), failed so far and when it is
 * tried next, or given up. A message delivered twice finds the row and does nothing again.
 */
export const eventDeliveries = pgTable(
  'event_deliveries',
  {
    eventId: bigint('event_id', { mode: 'number' })
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    subscriber: text('subscriber').notNull(),
    handledAt: timestamp('handled_at', { withTimezone: true, precision: 3 }),
    /** failed tries (a try that never finished counts); at `MAX_SUBSCRIBER_ATTEMPTS` the event is given up for this subscriber */
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    /** after a failure: the next try is not before this */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, precision: 3 }),
    gaveUpAt: timestamp('gave_up_at', { withTimezone: true, precision: 3 }),
  },
  // event first: the drain reads the deliveries of a batch of events, the cascade those of an event
  (t) => [primaryKey({ columns: [t.eventId, t.subscriber] })],
);
