import { and, gt, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app-env';
import { EVERYONE, requireRole } from '../../auth/access';
import { announcements, type UserRole } from '../../db/schema';
import { addRoute } from '../../http/route';
import { errorBodySchema } from '../../openapi/schemas';
import { compiled } from '../engine/compiled';
import { parseIncludes } from '../engine/list-params';
import { selectPage } from '../engine/queries';
import { announcementsResource } from '../announcements/announcements.resource';

type Audience = (typeof announcements.audience.enumValues)[number];

/** The audiences each role belongs to. */
const AUDIENCES_OF: Record<UserRole, readonly Audience[]> = {
  owner: ['everyone', 'agents', 'admins', 'owners'],
  admin: ['everyone', 'agents', 'admins'],
  agent: ['everyone', 'agents'],
  collaborator: ['everyone'],
};

const one = z.object({ announcement: compiled(announcementsResource).schemas.record, included: z.record(z.string(), z.array(z.unknown())) });
const error = { description: 'error', schema: errorBodySchema };

/**
 * `GET /v2/announcement.json`: the newest announcement published, not expired and addressed to
 * an audience the caller belongs to; 204 with no body when there is none.
 */
export function currentAnnouncementRoute(app: Hono<AppEnv>): void {
  addRoute(app, {
    method: 'get', path: '/v2/announcement.json', tag: 'announcement', summary: "The announcement for the caller's role",
    query: [{ name: 'includes', description: 'comma list of: users, all', schema: { type: 'string' } }],
    responses: { 200: { description: 'the announcement', schema: one }, 204: { description: 'no announcement for the caller' }, 400: error, 401: error },
  }, async (c) => {
    const who = c.var.principal;
    requireRole(who, EVERYONE);
    const includes = parseIncludes(c.req.query('includes'), compiled(announcementsResource).includeNames);
    const t = announcements;
    const live = and(inArray(t.audience, [...AUDIENCES_OF[who.role]]), lte(t.publishedAt, sql`now()`), or(isNull(t.expiresAt), gt(t.expiresAt, sql`now()`)));
    const result = await selectPage(c.var.db.http, announcementsResource, { who, where: live, includes }, {
      limit: 1,
      offset: 0,
      order: { expr: t.publishedAt, descending: true },
    });
    if (result.records.length === 0) return c.body(null, 204);
    return c.json({ announcement: result.records[0], included: result.included });
  });
}
