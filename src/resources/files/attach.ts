import { sql } from 'drizzle-orm';
import { ADMINS } from '../../auth/access';
import type { WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';

/** How many files one thread entry carries. */
export const MAX_FILES_PER_ENTRY = 20;

/**
 * Links confirmed files to a thread entry, in its write's transaction. A file is attached only
 * when it is the installation's, live, confirmed, and the caller's upload (an owner or admin may
 * attach any): anything else is a 400 naming it (`source` is the body's list, as `files`).
 */
export async function attachFiles({ tx, who }: WriteContext, messageId: number, fileIds: readonly number[], source: string): Promise<void> {
  if (fileIds.length === 0) return;
  const anyone = who.kind === 'system' || ADMINS.includes(who.role);
  const { rows } = await tx.execute(sql`
    SELECT f.id FROM files f
     WHERE f.installation_id = ${who.installationId} AND f.state = 'active' AND f.confirmed_at IS NOT NULL
       AND (${anyone}::boolean OR f.created_by = ${who.userId}::int)
       AND f.id IN (SELECT jsonb_array_elements_text(${JSON.stringify(fileIds)}::jsonb)::int)`);
  const found = new Set(rows.map((row) => Number(row.id)));
  const missing = fileIds.findIndex((id) => !found.has(id));
  if (missing >= 0) throw ApiError.invalid(`${source}[${missing}]`, `no confirmed file ${fileIds[missing]} of yours here: upload it and confirm it (PATCH /v2/files/{id}.json) first`);
  await tx.execute(sql`
    INSERT INTO ticket_message_files (installation_id, message_id, file_id, created_by)
    SELECT ${who.installationId}, ${messageId}, id, ${who.userId}::int FROM (SELECT DISTINCT jsonb_array_elements_text(${JSON.stringify(fileIds)}::jsonb)::int AS id) ids
    ON CONFLICT DO NOTHING`);
}
