import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { ANNOUNCEMENT_AUDIENCES, announcements } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { AUDIT_SET, defineResource, type WriteContext } from '../../engine';
import { tenantScope } from '../../engine';
import { includedUsers } from '../users/user-shape';

/** A time as ISO 8601 with a zone (`Z` or an offset), read as a Date; years a timestamp column takes. */
const time = z.iso
  .datetime({ offset: true })
  .transform((text) => new Date(text))
  .refine((date) => date.getUTCFullYear() >= 1970 && date.getUTCFullYear() <= 9999, 'must be a time between 1970 and 9999');

/** An announcement ends after it starts: checked against the stored values a PATCH leaves as they are. */
async function requireExpiryAfterPublication({ tx, who }: WriteContext, record: Record<string, unknown>, id: number | undefined) {
  if (record.publishedAt === undefined && record.expiresAt === undefined) return;
  let stored: { publishedAt: Date; expiresAt: Date | null } | undefined;
  if (id !== undefined) {
    [stored] = await tx
      .select({ publishedAt: announcements.publishedAt, expiresAt: announcements.expiresAt })
      .from(announcements)
      .where(and(tenantScope(announcements, who.installationId), eq(announcements.id, id)));
    if (!stored) return; // the update answers 404
  }
  const publishedAt = (record.publishedAt as Date | undefined) ?? stored?.publishedAt ?? new Date();
  const expiresAt = record.expiresAt === undefined ? stored?.expiresAt : (record.expiresAt as Date | null);
  if (expiresAt && expiresAt <= publishedAt) {
    throw ApiError.invalid(`announcement.${record.expiresAt === undefined ? 'publishedAt' : 'expiresAt'}`, 'the announcement must expire after it is published');
  }
}

/**
 * What the owner publishes. `GET /v2/announcement.json` (`../announcement/current.ts`) shows
 * each caller the newest one live for their role; these routes are the owner's desk.
 */
export const announcementsResource = defineResource({
  type: 'announcements',
  singular: 'announcement',
  title: { one: 'Announcement', many: 'Announcements', group: 'Announcement' },
  table: announcements,
  fields: {
    title: { column: announcements.title, schema: z.string().trim().min(1).max(255), required: true },
    body: { column: announcements.body, schema: z.string().trim().min(1).max(10_000), required: true },
    audience: { column: announcements.audience, schema: z.enum(ANNOUNCEMENT_AUDIENCES) },
    publishedAt: { column: announcements.publishedAt, schema: time },
    expiresAt: { column: announcements.expiresAt, schema: time.nullable() },
  },
  filter: [...AUDIT_SET, 'audience', 'expiresAt', 'publishedAt', 'title'],
  relations: { users: includedUsers() },
  // Owners only: the desk shows every audience and drafts not yet published.
  access: { read: ['owner'], write: ['owner'] },
  // No bulk update: it would skip the publication/expiry check.
  operations: ['list', 'get', 'create', 'update', 'delete'],
  beforeWrite: requireExpiryAfterPublication,
});
