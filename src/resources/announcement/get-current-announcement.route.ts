import { and, gt, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import { EVERYONE } from '../../auth/access';
import { announcements, type UserRole } from '../../db/schema';
import { schemasOf, selectPage } from '../../engine';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { announcementsResource } from '../announcements/announcements.resource';

type Audience = (typeof announcements.audience.enumValues)[number];

/** The audiences each role belongs to. */
const AUDIENCES_OF: Record<UserRole, readonly Audience[]> = {
  owner: ['everyone', 'agents', 'admins', 'owners'],
  admin: ['everyone', 'agents', 'admins'],
  agent: ['everyone', 'agents'],
  collaborator: ['everyone'],
};

const s = schemasOf(announcementsResource);

/**
 * `GET /v2/announcement.json`: the newest announcement published, not expired and addressed to
 * an audience the caller belongs to; 204 with no body when there is none.
 */
export const getCurrentAnnouncementRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/announcement.json',
    tag: 'Announcement',
    operationId: 'getCurrentAnnouncement',
    roles: EVERYONE,
    summary: "The announcement for the caller's role",
    description:
      "The newest live announcement (published, not expired, not deleted) addressed to an audience the caller's role belongs to: `everyone`, `agents` for seated teammates, `admins` for admins and the owner, `owners` for the owner. Answers 204 with no body when there is none. `includes=users` adds the users of its audit references. See docs/resources/announcement.md.",
    request: { query: s.writeQuery },
    responses: { 200: jsonResponse('the announcement', s.one), 204: { description: 'no announcement for the caller' } },
  },
  async (c) => {
    const who = c.var.principal;
    const { includes } = c.req.valid('query');
    const t = announcements;
    const live = and(
      inArray(t.audience, [...AUDIENCES_OF[who.role]]),
      lte(t.publishedAt, sql`now()`),
      or(isNull(t.expiresAt), gt(t.expiresAt, sql`now()`)),
    );
    const result = await selectPage(
      c.var.db.http,
      announcementsResource,
      { who, where: live, includes },
      {
        limit: 1,
        offset: 0,
        order: { expr: t.publishedAt, descending: true },
      },
    );
    if (result.records.length === 0) return c.body(null, 204);
    return c.json({ announcement: result.records[0], included: result.included }, 200);
  },
);
