import { sql, type SQL } from 'drizzle-orm';
import type { Attachment } from 'postal-mime';
import type { Env } from '../../app-env';
import { files } from '../../db/schema';
import type { Actor } from '../../auth/principal';
import { recalled, remember } from '../../db/refusal';
import { createStatement, type Writer } from '../../engine';
import { MAX_FILES_PER_ENTRY } from '../files/attach';
import { MAX_FILE_BYTES } from '../files/upload-policy';

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
  typeof content === 'string'
    ? new TextEncoder().encode(content)
    : content instanceof Uint8Array
      ? content
      : new Uint8Array(content);

/** An object key of a mail's part: its installation first, as every file's; its own name, since the file's id is not known before the batch. */
const partKey = (installationId: number) => `i${installationId}/mail/${crypto.randomUUID()}`;

/**
 * The attachments stored in the bucket first, then the statements of the batch that make them the
 * entry's files (`entryId`, `ticketId`: SQL, the ids the batch makes) with their events, link them
 * and point the entry's inline images at their downloads. A batch that fails leaves the stored
 * parts to no row: nothing reads them.
 */
export async function attachmentStatements(
  writer: Writer,
  who: Actor,
  env: Pick<Env, 'FILES'>,
  ticketId: SQL,
  entryId: SQL,
  attachments: readonly Attachment[],
): Promise<SQL[]> {
  if (attachments.length === 0) return [];
  const kept = attachments
    .slice(0, MAX_FILES_PER_ENTRY)
    .map((attachment, index) => ({ attachment, index, bytes: bytesOf(attachment.content) }))
    .filter(({ bytes }) => bytes.byteLength > 0 && bytes.byteLength <= MAX_FILE_BYTES);
  const keys = await Promise.all(
    kept.map(async ({ attachment, bytes }) => {
      const key = partKey(who.installationId);
      await env.FILES.put(key, bytes, {
        httpMetadata: { contentType: attachment.mimeType || 'application/octet-stream' },
      });
      return key;
    }),
  );
  const fileId = (i: number) => recalled(`mail_file_${i}`);
  const made = kept.map(({ attachment, bytes }, i) =>
    createStatement(
      writer,
      who,
      { table: files, type: 'files' },
      [
        {
          installationId: who.installationId,
          name:
            (attachment.filename ?? '')
              .replace(/[\u0000-\u001f\u007f/\\]/g, '_')
              .trim()
              .slice(0, 255) || `attachment.${attachment.mimeType.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin'}`,
          contentType: attachment.mimeType.slice(0, 255) || 'application/octet-stream',
          size: bytes.byteLength,
          disposition:
            attachment.contentId && (attachment.related || attachment.disposition === 'inline')
              ? 'attachment-inline'
              : 'attachment',
          storageKey: keys[i]!,
          uploadedAt: sql`now()`,
          confirmedAt: sql`now()`,
        },
      ],
      undefined,
      sql`id, ${remember(`mail_file_${i}`, sql`id`)}`,
    ),
  );
  const linked =
    kept.length === 0
      ? []
      : [
          sql`
    INSERT INTO ticket_message_files (installation_id, message_id, file_id, created_by)
    VALUES ${sql.join(
      kept.map((_, i) => sql`(${who.installationId}::int, ${entryId}, ${fileId(i)}, ${who.userId}::int)`),
      sql`, `,
    )}`,
        ];
  // each inline image at its file; a placeholder whose part was left out, dropped
  const shown = kept.reduce<SQL>(
    (body, { index }, i) =>
      sql`replace(${body}, ${placeholder(index)}::text, '/v2/tickets/' || ${ticketId} || '/files/' || ${fileId(i)} || '/download')`,
    sql`html_body`,
  );
  return [
    ...made,
    ...linked,
    sql`UPDATE ticket_messages SET html_body = regexp_replace(${shown}, 'https://inline-[0-9]+[.]mail[.]invalid/', '', 'g')
         WHERE id = ${entryId} AND html_body LIKE '%.mail.invalid/%'`,
  ];
}
