import { sql } from 'drizzle-orm';
import { bigint, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';

export const FILE_DISPOSITIONS = ['attachment', 'attachment-inline'] as const;

/**
 * An uploaded file (an attachment of a thread entry or a canned response). Made by
 * `POST /v2/files/ref.json` (pending), its bytes posted to the upload url (`uploadedAt`), then
 * confirmed by `PATCH /v2/files/{id}.json` (`confirmedAt`): only a confirmed file is attached.
 */
export const files = pgTable(
  'files',
  {
    ...auditColumns(),
    name: text('name').notNull(),
    contentType: text('content_type').notNull().default('application/octet-stream'),
    size: bigint('size', { mode: 'number' }).notNull().default(0),
    url: text('url'),
    disposition: text('disposition', { enum: FILE_DISPOSITIONS }).notNull().default('attachment'),
    /** the object's key in the FILES bucket; null for a file that was never uploaded here */
    storageKey: text('storage_key'),
    /** SHA-256 of the upload's one-time signature and its policy (`upload-policy.ts`); until when the upload url takes the bytes */
    uploadTokenHash: text('upload_token_hash'),
    uploadExpiresAt: timestamp('upload_expires_at', { withTimezone: true, precision: 3 }),
    uploadedAt: timestamp('uploaded_at', { withTimezone: true, precision: 3 }),
    confirmedAt: timestamp('confirmed_at', { withTimezone: true, precision: 3 }),
  },
  // the cron's sweep of unconfirmed uploads
  (t) => [
    index('files_unconfirmed_idx')
      .on(t.createdAt)
      .where(sql`confirmed_at IS NULL AND storage_key IS NOT NULL`),
  ],
);
