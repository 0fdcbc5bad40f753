import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';
import { users } from './identity';
import { inboxes } from './inboxes';
import { tickets, ticketMessages } from './tickets';

/** What a customer may answer a satisfaction survey with: a name and its score. */
export const happinessRatingOptions = pgTable(
  'happiness_rating_options',
  {
    ...auditColumns(),
    name: text('name').notNull(),
    score: integer('score').notNull(),
    displayOrder: integer('display_order').notNull().default(0),
  },
  (t) => [
    uniqueIndex('happiness_rating_options_name_key')
      .on(t.installationId, sql`lower(${t.name})`)
      .where(sql`${t.state} = 'active'`),
  ],
);

/** A survey sent with the reply that solved a ticket; its link's token is derived from its id (`survey-token.ts`), never stored. */
export const happinessSurveys = pgTable(
  'happiness_surveys',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    installationId: integer('installation_id').notNull(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id),
    messageId: integer('message_id')
      .notNull()
      .references(() => ticketMessages.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [index('happiness_surveys_ticket_idx').on(t.ticketId)],
);

/** A customer's rating of a ticket (one live a ticket: rating again changes it), with who worked it then. */
export const happinessRatings = pgTable(
  'happiness_ratings',
  {
    ...auditColumns(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id),
    surveyId: integer('survey_id')
      .notNull()
      .references(() => happinessSurveys.id),
    optionId: integer('option_id')
      .notNull()
      .references(() => happinessRatingOptions.id),
    score: integer('score').notNull(),
    comment: text('comment').notNull().default(''),
    /** the ticket's agent and inbox when it was rated: the summary's groups */
    agentId: integer('agent_id').references(() => users.id),
    inboxId: integer('inbox_id')
      .notNull()
      .references(() => inboxes.id),
  },
  (t) => [
    uniqueIndex('happiness_ratings_ticket_key')
      .on(t.ticketId)
      .where(sql`${t.state} = 'active'`),
    index('happiness_ratings_agent_idx').on(t.installationId, t.agentId),
    index('happiness_ratings_inbox_idx').on(t.installationId, t.inboxId),
  ],
);
