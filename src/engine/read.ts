import { and, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import type { Actor } from '../auth/principal';
import { ApiError } from '../http/errors';
import type { Transaction } from '../db/client';
import { orderExprOf } from './fields';
import { pageMetadata } from './list-params';
import { selectOne, selectPage, type RecordsResult, type WireRecord } from './queries';
import type { ListQuery } from './schemas';
import type { ResourceDeclaration } from './types';
import { selectionFromFilter } from './selection';

/** A sparse field set: only the named properties of each record, and always `id` and `type`. */
function sparse(records: WireRecord[], fields: readonly string[] | undefined): WireRecord[] {
  if (!fields) return records;
  const keep = new Set(['id', 'type', ...fields]);
  return records.map((record) => Object.fromEntries(Object.entries(record).filter(([name]) => keep.has(name))));
}

/** `{"company": {...}, "included": {...}}` */
function oneRecordBody(resource: ResourceDeclaration, result: RecordsResult, fields?: readonly string[]) {
  return { [resource.singular]: sparse(result.records, fields)[0]!, included: result.included };
}

/** A record by id in the caller's installation, or the spec's 404 error body. */
export async function readOne(
  c: Context<AppEnv>,
  resource: ResourceDeclaration,
  id: number,
  includes: readonly string[],
  fields?: readonly string[],
) {
  const result = await selectOne(c.var.db.http, resource, id, { who: c.var.principal, includes });
  if (!result) throw ApiError.notFound('id', `${resource.singular} ${id} not found`);
  return oneRecordBody(resource, result, fields);
}

/**
 * The record a write made or changed, read inside the write's transaction (so it reads as the
 * write left it, before the commit), as the write answers it: `{"company": {...}, "included": {...}}`.
 */
export async function readBack(
  tx: Transaction,
  resource: ResourceDeclaration,
  who: Actor,
  id: number,
  includes: readonly string[],
) {
  const result = await selectOne(tx, resource, id, { who, includes });
  if (!result) throw new Error(`${resource.singular} ${id} is not there to read back`);
  return oneRecordBody(resource, result);
}

/** The order a list asks for, else its resource's default (`defaultOrderBy`), else none (by id). */
function orderOf(resource: ResourceDeclaration, who: Actor, query: ListQuery) {
  const name = query.orderBy ?? resource.defaultOrderBy;
  if (!name) return undefined;
  return { expr: orderExprOf(resource, who, name), descending: query.orderMode === 'desc' };
}

/**
 * A list body: `filter`, `orderBy`, paging, `includes` and `fields` from the query, within what
 * `who` may see and, when given, `within` (a conversation's history, say).
 */
export async function listBody(
  c: Context<AppEnv>,
  resource: ResourceDeclaration,
  who: Actor,
  query: ListQuery,
  within?: SQL,
) {
  const selection = selectionFromFilter(query.filter, resource, who);
  const own = await Promise.all(
    Object.entries(resource.listParams ?? {}).map(([name, param]) =>
      param.where(c.var.db.http, who, (query as Record<string, unknown>)[name]),
    ),
  );
  const result = await selectPage(
    c.var.db.http,
    resource,
    { ...selection, where: and(selection.where, within, ...own), includes: query.includes },
    {
      limit: query.pageSize,
      offset: (query.page - 1) * query.pageSize,
      order: orderOf(resource, who, query),
    },
  );
  return {
    [resource.listKey ?? resource.type]: sparse(result.records, query.fields),
    included: result.included,
    ...pageMetadata(query.page, query.pageSize, result.total),
  };
}
