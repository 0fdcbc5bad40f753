import { date, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * The two metered streams of the AI add-on (docs/ai.md): `replies`, an agent's reply sent from
 * an AI draft; `chat`, an answer the AI assistant wrote into a live chat.
 */
export const AI_STREAMS = ['replies', 'chat'] as const;
export type AiStream = (typeof AI_STREAMS)[number];

/** One metered use, recorded in the transaction that stores what it produced; at most once per source. */
export const aiUsageEvents = pgTable(
  'ai_usage_events',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    installationId: integer('installation_id').notNull(),
    stream: text('stream', { enum: AI_STREAMS }).notNull(),
    units: integer('units').notNull().default(1),
    sourceType: text('source_type').notNull(),
    sourceId: integer('source_id').notNull(),
    occurredAt: timestamp('occurred_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('ai_usage_events_source_key').on(t.stream, t.sourceType, t.sourceId),
    index('ai_usage_events_installation_idx').on(t.installationId, t.occurredAt),
  ],
);

export const AI_USAGE_STATES = ['ok', 'warning', 'exhausted'] as const;

/** What the cron trigger measured for one installation's billing period. */
export const aiUsagePeriods = pgTable(
  'ai_usage_periods',
  {
    installationId: integer('installation_id').notNull(),
    periodStart: date('period_start', { mode: 'string' }).notNull(),
    resetDate: date('reset_date', { mode: 'string' }).notNull(),
    allowance: integer('allowance').notNull(),
    repliesUsed: integer('replies_used').notNull().default(0),
    chatUsed: integer('chat_used').notNull().default(0),
    state: text('state', { enum: AI_USAGE_STATES }).notNull(),
    measuredAt: timestamp('measured_at', { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.installationId, t.periodStart] })],
);
