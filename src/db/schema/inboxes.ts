import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';

/** A mailbox or channel tickets arrive through. Its own endpoints come with the inboxes work. */
export const inboxes = pgTable('inboxes', {
  ...auditColumns(),
  name: text('name').notNull(),
  email: text('email'),
  /** the status of its new tickets (`ticketstatus`); null: active */
  ticketStatusId: integer('ticket_status_id'),
});
