import { and, fillPlaceholders, sql, type Column, type Query, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Principal } from '../../auth/principal';
import type { Queryable } from '../../db/client';
import { finishRecord, recordJson } from './record-json';
import { shapeOf, type ResourceDeclaration } from './resource';
import { recordScope, tenantScope } from './scope';

export interface RecordSelection {
  who: Principal;
  where?: SQL;
  withDeleted?: boolean;
  includes: readonly string[];
}

export interface Page {
  limit: number;
  offset: number;
  order: { expr: Column | SQL; descending: boolean } | undefined;
}

export type WireRecord = Record<string, unknown>;

export interface RecordsResult {
  records: WireRecord[];
  included: Record<string, WireRecord[]>;
  total: number;
}

/**
 * SQL fragments that do not depend on the caller are built once per isolate: building them is
 * a good part of a request's own CPU (docs/benchmarks.md).
 */
const recordSql = new WeakMap<ResourceDeclaration, SQL>();
const includeSql = new WeakMap<ResourceDeclaration, Map<string, SQL>>();

function recordDependsOnCaller(resource: ResourceDeclaration): boolean {
  return Object.values(resource.computed ?? {}).some((field) => typeof field.expr === 'function');
}

function recordOf(resource: ResourceDeclaration, who: Principal): SQL {
  if (recordDependsOnCaller(resource)) return recordJson(shapeOf(resource, who));
  let fragment = recordSql.get(resource);
  if (!fragment) recordSql.set(resource, (fragment = recordJson(shapeOf(resource, who))));
  return fragment;
}

/** `, (related records) AS inc_<name>` for each include. */
function includeColumns(resource: ResourceDeclaration, includes: readonly string[], who: Principal): SQL {
  const columns = includes.map((name) => {
    const relation = resource.relations[name]!;
    if (relation.dependsOnCaller) return sql`, ${relation.recordsJson(resource.table, who)} AS ${sql.identifier(`inc_${name}`)}`;
    let built = includeSql.get(resource);
    if (!built) includeSql.set(resource, (built = new Map()));
    let fragment = built.get(name);
    if (!fragment) built.set(name, (fragment = sql`, ${relation.recordsJson(resource.table, who)} AS ${sql.identifier(`inc_${name}`)}`));
    return fragment;
  });
  return sql.join(columns);
}

/** Puts the related records of each row into `included`, once each, and references on the record. */
function assemble(resource: ResourceDeclaration, rows: Record<string, unknown>[], includes: readonly string[]): Omit<RecordsResult, 'total'> {
  const included: Record<string, Map<number, WireRecord>> = {};
  const records = rows.map((row) => {
    const record = finishRecord(row.record as WireRecord);
    for (const name of includes) {
      const relation = resource.relations[name]!;
      const related = (row[`inc_${name}`] as WireRecord[]).map(finishRecord);
      const seen = (included[relation.type] ??= new Map());
      for (const item of related) seen.set(item.id as number, item);
      if (relation.cardinality === 'none') continue;
      const refs = related.map((item) => ({ id: item.id, type: relation.type }));
      record[name] = relation.cardinality === 'many' ? refs : (refs[0] ?? null);
    }
    return record;
  });
  return { records, included: Object.fromEntries(Object.entries(included).map(([type, byId]) => [type, [...byId.values()]])) };
}

function scopeOf(resource: ResourceDeclaration, selection: RecordSelection): SQL {
  return and(recordScope(resource, selection.who, selection.withDeleted), selection.where)!;
}

const dialect = new PgDialect();
const preparedOnes = new WeakMap<ResourceDeclaration, Map<string, Query>>();

/**
 * The get-by-id statement rendered to text once per resource and includes, with only the
 * installation and the id left as parameters: rendering it is the largest part of a GET's own
 * CPU. Only for resources whose records and scope are the same for every caller (with a scope
 * rule of its own, `recordScope` is needed, and the statement is rendered per request).
 */
function preparedOne(resource: ResourceDeclaration, includes: readonly string[], who: Principal): Query | undefined {
  if (resource.scope || recordDependsOnCaller(resource) || includes.some((name) => resource.relations[name]!.dependsOnCaller)) return undefined;
  let byIncludes = preparedOnes.get(resource);
  if (!byIncludes) preparedOnes.set(resource, (byIncludes = new Map()));
  const key = includes.join(',');
  let prepared = byIncludes.get(key);
  if (!prepared) {
    const t = resource.table;
    const scope = tenantScope(t, resource.tenancy === 'global' ? 'global' : sql.placeholder('installationId'));
    prepared = dialect.sqlToQuery(sql`
      SELECT ${recordOf(resource, who)} AS record ${includeColumns(resource, includes, who)}
      FROM ${t} WHERE ${scope} AND ${t.id} = ${sql.placeholder('id')}`);
    byIncludes.set(key, prepared);
  }
  return prepared;
}

/** One record by id, with what it includes: one statement. */
export async function selectOne(db: Queryable, resource: ResourceDeclaration, id: number, selection: RecordSelection): Promise<RecordsResult | undefined> {
  const t = resource.table;
  const prepared = !selection.where && !selection.withDeleted && db.executeText ? preparedOne(resource, selection.includes, selection.who) : undefined;
  const { rows } = prepared
    ? await db.executeText!(prepared.sql, fillPlaceholders(prepared.params, { installationId: selection.who.installationId, id }))
    : await db.execute(sql`
    SELECT ${recordOf(resource, selection.who)} AS record ${includeColumns(resource, selection.includes, selection.who)}
    FROM ${t} WHERE ${scopeOf(resource, selection)} AND ${t.id} = ${id}`);
  if (rows.length === 0) return undefined;
  return { ...assemble(resource, rows, selection.includes), total: 1 };
}

/**
 * A page of records with what they include and the total that matches: one statement, whatever
 * the page size. The innermost query picks the page's ids in order (an index can serve it and
 * stop at the page); the outer one builds only those records; the total is one count, run once.
 */
export async function selectPage(db: Queryable, resource: ResourceDeclaration, selection: RecordSelection, page: Page): Promise<RecordsResult> {
  const t = resource.table;
  const direction = page.order?.descending ? sql`DESC` : sql`ASC`;
  const order = page.order ? sql`${page.order.expr} ${direction}, ${t.id} ${direction}` : sql`${t.id} ASC`;
  const scope = scopeOf(resource, selection);
  const { rows } = await db.execute(sql`
    SELECT ${recordOf(resource, selection.who)} AS record ${includeColumns(resource, selection.includes, selection.who)},
      (SELECT count(*)::int FROM ${t} WHERE ${scope}) AS total
    FROM (
      SELECT ids.page_id, row_number() OVER () AS position
      FROM (SELECT ${t.id} AS page_id FROM ${t} WHERE ${scope} ORDER BY ${order} LIMIT ${page.limit} OFFSET ${page.offset}) ids
    ) page
    JOIN ${t} ON ${t.id} = page.page_id
    ORDER BY page.position`);
  let total = (rows[0]?.total as number | undefined) ?? 0;
  if (rows.length === 0 && page.offset > 0) {
    const counted = await db.execute(sql`SELECT count(*)::int AS total FROM ${t} WHERE ${scope}`);
    total = counted.rows[0]!.total as number;
  }
  return { ...assemble(resource, rows, selection.includes), total };
}
