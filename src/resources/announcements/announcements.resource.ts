import { and, eq, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Actor } from '../../auth/principal';
import { refuseWhen } from '../../db/refusal';
import { ANNOUNCEMENT_AUDIENCES, announcements } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { AUDIT_SET, defineResource, type WriteContext } from '../../engine';
import { tenantScope } from '../../engine';
import { includedUsers } from '../users/user-shape';

/** A time as ISO 8601 with a zone (`Z` or an offset), read as a Date; years a timestamp column takes. */
const time = z.iso
  .datetime({ offset: true })
  .transform((text) => new Date(text))
  .refine(
    (date) => date.getUTCFullYear() >= 1970 && date.getUTCFullYear() <= 9999,
    'must be a time between 1970 and 9999',
  );

/** The property the expiry rule names: the one sent of the two (expiresAt when both are). */
const sourceOf = (record: Record<string, unknown>) =>
  `announcement.${record.expiresAt === undefined ? 'publishedAt' : 'expiresAt'}`;
const EXPIRES_BEFORE_PUBLISHED = 'the announcement must expire after it is published';

/** The rule over the values the write leaves, where the Worker has them all (a create, or both sent): whether it is broken. */
function expiresTooSoon(
  record: Record<string, unknown>,
  stored?: { publishedAt: Date; expiresAt: Date | null },
): boolean {
  const publishedAt = (record.publishedAt as Date | undefined) ?? stored?.publishedAt ?? new Date();
  const expiresAt = record.expiresAt === undefined ? stored?.expiresAt : (record.expiresAt as Date | null);
  return Boolean(expiresAt && expiresAt <= publishedAt);
}

/** An announcement ends after it starts: checked against the stored values a PATCH leaves as they are. */
async function requireExpiryAfterPublication(
  { tx, who }: WriteContext,
  record: Record<string, unknown>,
  id: number | undefined,
) {
  if (record.publishedAt === undefined && record.expiresAt === undefined) return;
  let stored: { publishedAt: Date; expiresAt: Date | null } | undefined;
  if (id !== undefined) {
    [stored] = await tx
      .select({ publishedAt: announcements.publishedAt, expiresAt: announcements.expiresAt })
      .from(announcements)
      .where(and(tenantScope(announcements, who.installationId), eq(announcements.id, id)));
    if (!stored) return; // the update answers 404
  }
  if (expiresTooSoon(record, stored)) throw ApiError.invalid(sourceOf(record), EXPIRES_BEFORE_PUBLISHED);
}

/**
 * `requireExpiryAfterPublication` for a write sent as one batch: decided in the Worker where the
 * body names all it needs (a create; an update sending both times), else a check of the batch over
 * the stored time the update keeps (none where the record is not there: the update answers 404).
 */
function planExpiry(record: Record<string, unknown>, id: number | undefined): boolean {
  if (record.publishedAt === undefined && record.expiresAt === undefined) return true;
  if (
    (id === undefined || (record.publishedAt !== undefined && record.expiresAt !== undefined)) &&
    expiresTooSoon(record)
  ) {
    throw ApiError.invalid(sourceOf(record), EXPIRES_BEFORE_PUBLISHED);
  }
  return true;
}

function expiryCheck(who: Actor, record: Record<string, unknown>, id: number | undefined): SQL[] {
  if (id === undefined || (record.publishedAt === undefined) === (record.expiresAt === undefined)) return [];
  const t = announcements;
  const publishedAt =
    record.publishedAt === undefined ? t.publishedAt : sql`${(record.publishedAt as Date).toISOString()}::timestamptz`;
  const expiresAt =
    record.expiresAt === undefined
      ? t.expiresAt
      : sql`${(record.expiresAt as Date | null)?.toISOString() ?? null}::timestamptz`;
  const broken = sql`EXISTS (SELECT 1 FROM ${t} WHERE ${and(tenantScope(t, who.installationId), eq(t.id, id))} AND ${expiresAt} <= ${publishedAt})`;
  return [refuseWhen(broken, 400, sourceOf(record), EXPIRES_BEFORE_PUBLISHED)];
}

/**
 * What the owner publishes. `GET /v2/announcement.json` (`../announcement/get-current-announcement.route.ts`) shows
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
  examples: {
    create: {
      title: 'New inbox for billing',
      body: 'Billing questions now go to the Billing inbox.',
      audience: 'agents',
    },
    update: { expiresAt: '2027-01-31T00:00:00Z' },
  },
  // No bulk update: it would skip the publication/expiry check.
  operations: ['list', 'get', 'create', 'update', 'delete'],
  beforeWrite: requireExpiryAfterPublication,
  planned: {
    before: (_who, record, id) => planExpiry(record, id),
    first: (_db, who, record, id) => expiryCheck(who, record, id),
  },
});
