import { and, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';
import { requireRole } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import { ApiError } from '../../http/errors';
import { pathParam } from '../../http/route';
import { compiled, queryableFields } from './compiled';
import { parseIncludes, parseOrdering, parsePaging } from './list-params';
import { selectOne, selectPage, type RecordsResult } from './queries';
import type { ResourceDeclaration } from './resource';
import { selectionFromFilter } from './selection';

/** `{"company": {...}, "included": {...}}` */
export function oneRecordBody(resource: ResourceDeclaration, result: RecordsResult) {
  return { [resource.singular]: result.records[0], included: result.included };
}

/** A record by id in the caller's installation, or the spec's 404 error body. */
export async function readOne(c: Context<AppEnv>, resource: ResourceDeclaration, id: number, includes: readonly string[]) {
  const result = await selectOne(c.var.db.http, resource, id, { who: c.var.principal, includes });
  if (!result) throw ApiError.notFound('id', `${resource.singular} ${id} not found`);
  return oneRecordBody(resource, result);
}

/**
 * A list body: `filter`, `orderBy`, paging and `includes` from the query, within what `who` may
 * see and, when given, `within` (a conversation's history, say).
 */
export async function listBody(c: Context<AppEnv>, resource: ResourceDeclaration, who: Principal, within?: SQL) {
  const fields = queryableFields(resource, who);
  const query = c.req.query();
  const paging = parsePaging(query);
  const ordering = parseOrdering(query, Object.keys(fields.orderFields));
  const includes = parseIncludes(query.includes, compiled(resource).includeNames);
  const selection = selectionFromFilter(query.filter, fields, who);
  const result = await selectPage(c.var.db.http, resource, { ...selection, where: and(selection.where, within), includes }, {
    limit: paging.pageSize,
    offset: (paging.page - 1) * paging.pageSize,
    order: ordering.name ? { expr: fields.orderFields[ordering.name]!, descending: ordering.descending } : undefined,
  });
  const pages = Math.ceil(result.total / paging.pageSize);
  return {
    [resource.type]: result.records,
    included: result.included,
    meta: {
      page: {
        page: paging.page,
        pageSize: paging.pageSize,
        pageOffset: (paging.page - 1) * paging.pageSize,
        count: result.total,
        pages,
        hasMore: paging.page < pages,
      },
    },
  };
}

export function listHandler(resource: ResourceDeclaration) {
  return async (c: Context<AppEnv>) => {
    requireRole(c.var.principal, resource.access.read);
    return c.json(await listBody(c, resource, c.var.principal));
  };
}

export function getHandler(resource: ResourceDeclaration) {
  return async (c: Context<AppEnv>) => {
    requireRole(c.var.principal, resource.access.read);
    const id = pathParam(c, 'id');
    const includes = parseIncludes(c.req.query('includes'), compiled(resource).includeNames);
    return c.json(await readOne(c, resource, id, includes));
  };
}
