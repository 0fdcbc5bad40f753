import { and, eq, inArray, isNotNull, sql, type SQL } from 'drizzle-orm';
import { ADMINS } from '../../auth/access';
import type { Actor } from '../../auth/principal';
import { files } from '../../db/schema';
import type { WriteContext } from '../../engine';
import { refuseFirst } from '../../db/refusal';
import { ApiError } from '../../http/errors';

/** How many files one thread entry carries. */
export const MAX_FILES_PER_ENTRY = 20;

/**
 * The files a caller may attach or link anywhere (a thread entry, a canned response, a chat
 * message): the installation's, live, confirmed, and the caller's own upload; an owner or admin,
 * or the service itself, any. One rule for every place, so that a file of a ticket the caller
 * cannot see is never linked where every teammate reads it. `fileShape` declares it, so each
 * relation to files applies it too (`manyToMany`).
 */
export function attachableFiles(who: Actor): SQL {
  const anyone = who.kind === 'system' || ADMINS.includes(who.role);
  return and(
    eq(files.installationId, who.installationId),
    eq(files.state, 'active'),
    isNotNull(files.confirmedAt),
    anyone ? undefined : eq(files.createdBy, who.userId),
  )!;
}

/** The refusal of a file the caller may not attach. */
export const notAttachable = (id: number) =>
  `no confirmed file ${id} of yours here: upload it and confirm it (PATCH /v2/files/{id}.json) first`;

/**
 * Links confirmed files to a thread entry, in its write's transaction. A file is attached only
 * when `attachableFiles` allows it: anything else is a 400 naming it (`source` is the body's
 * list, as `files`).
 */
export async function attachFiles(
  { tx, who }: WriteContext,
  messageId: number,
  fileIds: readonly number[],
  source: string,
): Promise<void> {
  if (fileIds.length === 0) return;
  const rows = await tx
    .select({ id: files.id })
    .from(files)
    .where(and(attachableFiles(who), inArray(files.id, [...new Set(fileIds)])));
  const found = new Set(rows.map((row) => Number(row.id)));
  const missing = fileIds.findIndex((id) => !found.has(id));
  if (missing >= 0) throw ApiError.invalid(`${source}[${missing}]`, notAttachable(fileIds[missing]!));
  await tx.execute(attachStatement(who, sql`${messageId}::int`, fileIds));
}

/** `attachFiles` as statements of a batch (the entry's id as SQL): the files checked, then linked. */
export function attachFilesStatements(who: Actor, messageId: SQL, fileIds: readonly number[], source: string): SQL[] {
  if (fileIds.length === 0) return [];
  const check = refuseFirst(
    fileIds.map((id, index) => ({ id, source: `${source}[${index}]`, detail: notAttachable(id) })),
    (id) => sql`NOT EXISTS (SELECT 1 FROM ${files} WHERE ${attachableFiles(who)} AND ${files.id} = ${id})`,
  );
  return [check!, attachStatement(who, messageId, fileIds)];
}

function attachStatement(who: Actor, messageId: SQL, fileIds: readonly number[]): SQL {
  return sql`
    INSERT INTO ticket_message_files (installation_id, message_id, file_id, created_by)
    SELECT ${who.installationId}, ${messageId}, id, ${who.userId}::int FROM (SELECT DISTINCT jsonb_array_elements_text(${JSON.stringify(fileIds)}::jsonb)::int AS id) ids
    ON CONFLICT DO NOTHING`;
}
