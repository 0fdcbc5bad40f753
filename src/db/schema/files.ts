import { bigint, pgTable, text } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';

/** An uploaded file (an attachment of a canned response, say). Uploads arrive with the ticket work. */
export const files = pgTable('files', {
  ...auditColumns(),
  name: text('name').notNull(),
  contentType: text('content_type').notNull().default('application/octet-stream'),
  size: bigint('size', { mode: 'number' }).notNull().default(0),
  url: text('url'),
});
