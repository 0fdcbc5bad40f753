import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import type { Actor } from '../../auth/principal';
import { FILE_DISPOSITIONS, files } from '../../db/schema';
import { AUDIT_SET, defineResource, timeProperty } from '../../engine';
import { liveVisibleTickets } from '../tickets/ticket-visibility';

/**
 * The files a caller sees: an owner or admin all of the installation's; a teammate their own
 * uploads, the attachments of the tickets they see, and those of canned responses and
 * conversation messages (which every teammate reads).
 */
export function visibleFiles(who: Actor) {
  if (who.kind !== 'teammate' || ADMINS.includes(who.role)) return undefined;
  return sql`(${files.createdBy} = ${who.userId}
    OR EXISTS (SELECT 1 FROM ticket_message_files tf JOIN ticket_messages m ON m.id = tf.message_id JOIN tickets ON tickets.id = m.ticket_id
                WHERE tf.file_id = ${files.id} AND m.state = 'active' AND ${liveVisibleTickets(who)})
    OR EXISTS (SELECT 1 FROM canned_response_files cf WHERE cf.file_id = ${files.id})
    OR EXISTS (SELECT 1 FROM conversation_message_files mf WHERE mf.file_id = ${files.id}))`;
}

/**
 * `GET /v2/files.json` and `/v2/files/{id}.json`: uploaded files. They are made by
 * `POST /v2/files/ref.json` and confirmed by `PATCH /v2/files/{id}.json` (`create-file-ref.route.ts`, `confirm-file.route.ts`).
 */
export const filesResource = defineResource({
  type: 'files',
  singular: 'file',
  title: { one: 'File', many: 'Files' },
  table: files,
  fields: {
    filename: { column: files.name, schema: z.string(), readOnly: true },
    mimeType: { column: files.contentType, schema: z.string(), readOnly: true },
    disposition: { column: files.disposition, schema: z.enum(FILE_DISPOSITIONS), readOnly: true },
    size: {
      column: files.size,
      schema: z.number().int().meta({ description: 'bytes; 0 until uploaded' }),
      readOnly: true,
    },
    uploadedAt: {
      column: files.uploadedAt,
      schema: z.unknown(),
      readOnly: true,
      output: timeProperty(files.uploadedAt),
    },
    confirmedAt: {
      column: files.confirmedAt,
      schema: z.unknown(),
      readOnly: true,
      output: timeProperty(files.confirmedAt),
    },
  },
  filter: [...AUDIT_SET, 'filename', 'mimeType', 'disposition', 'size', 'confirmedAt'],
  relations: {},
  access: { read: EVERYONE, write: EVERYONE },
  operations: ['list', 'get'],
  scope: visibleFiles,
});
