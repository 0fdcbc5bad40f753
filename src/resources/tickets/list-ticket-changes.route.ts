import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { EVERYONE } from '../../auth/access';
import { tickets } from '../../db/schema';
import {
  includesParam,
  pageMetadata,
  pageMetaSchema,
  pageSizeParam,
  paginationSchema,
  schemasOf,
  selectPage,
} from '../../engine';
import { ApiError } from '../../http/errors';
import { MAX_ID, textParam } from '../../http/params';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { isInstant } from '../../lib/time-values';
import { ticketsResource } from './tickets.resource';

const s = schemasOf(ticketsResource);

/** A point in the feed: the last change read, as (updatedAt, id). */
interface Position {
  at: string;
  id: number;
}

// base64url of ASCII JSON: no padding, no characters a query string must escape

const encode = (position: Position) =>
  btoa(JSON.stringify([position.at, position.id]))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

function decode(cursor: string): Position {
  try {
    const [at, id] = JSON.parse(atob(cursor.replace(/-/g, '+').replace(/_/g, '/'))) as unknown[];
    if (
      typeof at === 'string' &&
      isInstant(at) &&
      Number.isInteger(id) &&
      (id as number) >= 0 &&
      (id as number) <= MAX_ID
    )
      return { at, id: id as number };
  } catch {
    // answered below
  }
  throw ApiError.invalid('cursor', 'not a cursor this feed handed out');
}

const changesQuery = z.object({
  since: textParam('RFC 3339 time: the tickets changed after it (the first call)')
    .refine(isInstant, 'must be an RFC 3339 time, as 2026-11-23T10:00:00Z')
    .optional(),
  cursor: textParam('`meta.cursor` of the previous page: the tickets changed after the last one it gave').optional(),
  pageSize: pageSizeParam,
  includes: includesParam(Object.keys(ticketsResource.relations), ticketsResource.includeAliases),
});

const changesBody = z
  .object({
    tickets: z.array(s.record),
    included: s.many.shape.included,
    meta: z.object({
      cursor: z.string().meta({ description: 'where the next call starts: pass it as `cursor`' }),
      endOfStream: z
        .boolean()
        .meta({ description: 'true: every change up to now is read; call again later with the cursor' }),
      count: z
        .number()
        .int()
        .meta({ description: 'changes after the starting point that are settled, this page included' }),
      page: pageMetaSchema.meta({ description: 'this page as the first of what is left after the starting point' }),
    }),
    pagination: paginationSchema,
  })
  .meta({ id: 'TicketChangesBody' });

/**
 * The newest time a change may have been written with and be read safely: a second ago, or the
 * start of the oldest transaction still running, if earlier. A write stamps `now()`, its
 * transaction's start, and is seen only at commit: reading past a running transaction's start
 * could skip its tickets once it commits.
 */
const SETTLED = sql`(SELECT least(now() - interval '1 second',
  (SELECT min(xact_start) FROM pg_stat_activity WHERE xact_start IS NOT NULL AND pid <> pg_backend_pid() AND datname = current_database())))`;

/**
 * `GET /v2/tickets/changes.json`: every ticket changed (created, updated, replied to, deleted)
 * after a point, in (updatedAt, id) order, a page at a time, with a cursor that neither repeats
 * nor skips a ticket, however many changed in one millisecond.
 */
export const listTicketChangesRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/tickets/changes.json',
    tag: 'Tickets',
    operationId: 'listTicketChanges',
    roles: EVERYONE,
    summary: 'Tickets changed since a point, for sync',
    description:
      "Start with `since` (or neither: from the first ticket), then pass each answer's `meta.cursor`. Deleted tickets come with `state: deleted`.",
    request: { query: changesQuery },
    responses: { 200: jsonResponse('a page of changed tickets', changesBody) },
  },
  async (c) => {
    const who = c.var.principal;
    const query = c.req.valid('query');
    if (query.since !== undefined && query.cursor !== undefined)
      throw ApiError.invalid('cursor', 'name the starting point once: `since` or `cursor`');
    const from: Position =
      query.cursor !== undefined
        ? decode(query.cursor)
        : { at: query.since ?? '1970-01-01T00:00:00Z', id: query.since !== undefined ? MAX_ID : 0 };
    const where = sql`(${tickets.updatedAt}, ${tickets.id}) > (${from.at}::timestamptz, ${from.id}::int) AND ${tickets.updatedAt} < ${SETTLED}`;
    const page = await selectPage(
      c.var.db.http,
      ticketsResource,
      { who, where, withDeleted: true, includes: query.includes },
      {
        limit: query.pageSize,
        offset: 0,
        order: { expr: tickets.updatedAt, descending: false },
      },
    );
    const last = page.records.at(-1);
    const next = last ? { at: String(last.updatedAt), id: Number(last.id) } : from;
    const paging = pageMetadata(1, query.pageSize, page.total);
    const meta = {
      cursor: encode(next),
      endOfStream: page.total <= query.pageSize,
      count: page.total,
      page: paging.meta.page,
    };
    return c.json({ tickets: page.records, included: page.included, meta, pagination: paging.pagination }, 200);
  },
);
