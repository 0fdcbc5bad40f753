import { and, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import type { Actor } from '../auth/principal';
import { ApiError } from '../http/errors';
import { queryableFields } from './compiled';
import { pageMetadata } from './list-params';
import { selectOne, selectPage, type RecordsResult, type WireRecord } from './queries';
import type { ResourceDeclaration } from './types';
import { selectionFromFilter } from './selection';

/** A sparse field set: only the named properties of each record, and always `id` and `type`. */
export function sparse(records: WireRecord[], fields: readonly string[] | undefined): WireRecord[] {
  if (!fields) return records;
  const keep = new Set(['id', 'type', ...fields]);
  return records.map((record) => Object.fromEntries(Object.entries(record).filter(([name]) => keep.has(name))));
}

/** `{"company": {...}, "included": {...}}` */
export function oneRecordBody(resource: ResourceDeclaration, result: RecordsResult, fields?: readonly string[]) {
  return { [resource.singular]: sparse(result.records, fields)[0]!, included: result.included };
}

/** A record by id in the caller's installation, or the spec's 404 error body. */
export async function readOne(c: Context<AppEnv>, resource: ResourceDeclaration, id: number, includes: readonly string[], fields?: readonly string[]) {
  const result = await selectOne(c.var.db.http, resource, id, { who: c.var.principal, includes });
  if (!result) throw ApiError.notFound('id', `${resource.singular} ${id} not found`);
  return oneRecordBody(resource, result, fields);
}

/** A list's validated query: what `schemasOf(resource).listQuery` gives. */
export interface ListQuery {
  filter?: string;
  orderBy?: string;
  orderMode: string;
  page: number;
  pageSize: number;
  includes: string[];
  fields?: string[];
}

/**
 * A list body: `filter`, `orderBy`, paging, `includes` and `fields` from the query, within what
 * `who` may see and, when given, `within` (a conversation's history, say).
 */
export async function listBody(c: Context<AppEnv>, resource: ResourceDeclaration, who: Actor, query: ListQuery, within?: SQL) {
  const fields = queryableFields(resource, who);
  const selection = selectionFromFilter(query.filter, fields, who);
  const result = await selectPage(c.var.db.http, resource, { ...selection, where: and(selection.where, within), includes: query.includes }, {
    limit: query.pageSize,
    offset: (query.page - 1) * query.pageSize,
    order: query.orderBy ? { expr: fields.orderFields[query.orderBy]!, descending: query.orderMode === 'desc' } : undefined,
  });
  return {
    [resource.type]: sparse(result.records, query.fields),
    included: result.included,
    ...pageMetadata(query.page, query.pageSize, result.total),
  };
}
