import { boolean, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';
import { users } from './identity';
import { tickets } from './tickets';

/** Time a teammate spent on a ticket. `date` is when the work was done (the day it is counted on). */
export const timeLogs = pgTable(
  'time_logs',
  {
    ...auditColumns(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    seconds: integer('seconds').notNull(),
    date: timestamp('date', { withTimezone: true, precision: 3, mode: 'string' }).notNull().defaultNow(),
    billable: boolean('billable').notNull().default(false),
    description: text('description').notNull().default(''),
    /** the teammate's offset from UTC in minutes when logging, as the platform's client sends it */
    timezoneOffset: integer('timezone_offset').notNull().default(0),
  },
  (t) => [
    index('time_logs_ticket_idx').on(t.ticketId, t.id),
    index('time_logs_user_date_idx').on(t.installationId, t.userId, t.date),
  ],
);
