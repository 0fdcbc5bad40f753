import { pgTable, text } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';

/** A mailbox or channel tickets arrive through. Its own endpoints come with the tickets work. */
export const inboxes = pgTable('inboxes', {
  ...auditColumns(),
  name: text('name').notNull(),
  email: text('email'),
});
