import { sql } from 'drizzle-orm';
import type { Attachment } from 'postal-mime';
import type { Env } from '../../app-env';
import { files } from '../../db/schema';
import { createRecords, type WriteContext } from '../../engine';
import { attachFiles, MAX_FILES_PER_ENTRY } from '../files/attach';
import { MAX_FILE_BYTES, storageKey } from '../files/upload-policy';

/**
 * A message's attachments and inline images, as files of its thread entry: each stored in the
 * FILES bucket and linked to the entry like an upload confirmed and attached through the API. An
 * inline image's `cid:` reference in the body becomes the file's download path, so the thread
 * shows it. At most `MAX_FILES_PER_ENTRY` files (the rest are left out, and the entry says so);
 * empty parts are skipped.
 */

/** What stands for `cid:<id>` in a body until its file exists: an address the sanitizer keeps and nothing resolves. */
const placeholder = (index: number) => `https://inline-${index}.mail.invalid/`;

/** The body with each inline image's `cid:` reference replaced by its placeholder. */
export function markInlineImages(html: string, attachments: readonly Attachment[]): string {
  let marked = html;
  attachments.slice(0, MAX_FILES_PER_ENTRY).forEach((attachment, index) => {
    const contentId = attachment.contentId?.replace(/^<|>$/g, '');
    if (!contentId) return;
    const escaped = contentId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    marked = marked.replace(new RegExp(`cid:${escaped}`, 'gi'), placeholder(index));
  });
  return marked;
}

const bytesOf = (content: Attachment['content']): Uint8Array =>
  typeof content === 'string' ? new TextEncoder().encode(content) : content instanceof Uint8Array ? content : new Uint8Array(content);

/** Stores the attachments as the entry's files and points its inline images at them. */
export async function storeAttachments(context: WriteContext, env: Pick<Env, 'FILES'>, ticketId: number, entryId: number, attachments: readonly Attachment[]): Promise<void> {
  const { tx } = context;
  const kept = attachments.slice(0, MAX_FILES_PER_ENTRY).map((attachment, index) => ({ attachment, index, bytes: bytesOf(attachment.content) }))
    .filter(({ bytes }) => bytes.byteLength > 0 && bytes.byteLength <= MAX_FILE_BYTES);
  const ids = kept.length === 0 ? [] : await storeFiles(context, env, kept);
  if (ids.length) await attachFiles(context, entryId, ids, 'attachments');
  // each inline image at its file; a placeholder whose part was left out, dropped
  const { rows } = await tx.execute(sql`SELECT html_body FROM ticket_messages WHERE id = ${entryId}`);
  const html = String(rows[0]?.html_body ?? '');
  const rewritten = kept
    .reduce((body, { index }, i) => body.split(placeholder(index)).join(`/v2/tickets/${ticketId}/files/${ids[i]}/download`), html)
    .replace(/https:\/\/inline-\d+\.mail\.invalid\//g, '');
  if (rewritten !== html) await tx.execute(sql`UPDATE ticket_messages SET html_body = ${rewritten} WHERE id = ${entryId}`);
}

/** File rows for the parts (with their events), their bytes in the bucket: answers the ids, in order. */
async function storeFiles(context: WriteContext, env: Pick<Env, 'FILES'>, kept: Array<{ attachment: Attachment; bytes: Uint8Array }>): Promise<number[]> {
  const { tx, who } = context;
  const ids = await createRecords(tx, who, { table: files, type: 'files' }, kept.map(({ attachment, bytes }) => ({
    installationId: who.installationId,
    name: (attachment.filename ?? '').replace(/[\u0000-\u001f\u007f/\\]/g, '_').trim().slice(0, 255) || `attachment.${attachment.mimeType.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin'}`,
    contentType: attachment.mimeType.slice(0, 255) || 'application/octet-stream',
    size: bytes.byteLength,
    disposition: attachment.contentId && (attachment.related || attachment.disposition === 'inline') ? 'attachment-inline' : 'attachment',
  })));
  const stored = await Promise.all(kept.map(async ({ attachment, bytes }, i) => {
    const key = storageKey(who.installationId, ids[i]!);
    await env.FILES.put(key, bytes, { httpMetadata: { contentType: attachment.mimeType || 'application/octet-stream' } });
    return { id: ids[i]!, key };
  }));
  await tx.execute(sql`
    UPDATE files f SET storage_key = s.key, uploaded_at = now(), confirmed_at = now()
      FROM jsonb_to_recordset(${JSON.stringify(stored)}::jsonb) AS s(id int, key text) WHERE f.id = s.id`);
  return ids;
}
