import { sql, type SQL } from 'drizzle-orm';
import type { Actor } from '../auth/principal';
import { recordValues } from './record-json';
import { computedDependsOnCaller, shapeOf } from './resource';
import type { PageRead, RecordValues, Relation, ResourceDeclaration, RowRelation } from './types';

/*
 * A read is one statement, for a page of records or for one (a GET), built from the same parts:
 *
 *   WITH page AS MATERIALIZED (SELECT page_id, position ...)        -- the page's ids, in order
 *   SELECT
 *     (SELECT json_agg(<row> ORDER BY position) FROM page JOIN t ON t.id = page.page_id) AS records,
 *     (<each include's records over ARRAY(SELECT page_id FROM page)>) AS inc_<i>, ...
 *     (SELECT count(*) FROM t WHERE <scope>) AS total
 *
 *   SELECT <row> AS record, (<each include's records over ARRAY[id]>) AS inc_<i>, ...
 *   FROM t WHERE <scope> AND t.id = <id>                              -- one record
 *
 * `<row>` is `json_build_array(<the record's values>, <per-row extras>)` (`recordValues`).
 * `page` picks the ids (`ORDER BY ... LIMIT`, which an index can serve). Each include of a
 * relation made by `relations.ts` is one aggregate over the ids (its `page` form): its records for
 * all the parents at once, each tagged with its parent's id, and a `referencedBy` relation's
 * records once each however many rows name them (each row then carries the ids it names, as a
 * per-row extra). A relation without a page form (one defined elsewhere, e.g. an app's settings)
 * keeps its `recordsJson` subquery per row, as a per-row extra. The Worker makes the wire
 * records, groups the related ones by parent and fills `included` in the order the records name
 * them.
 */

/** How the statement reads one include, and where its result is. */
export type IncludePlan =
  | {
      name: string;
      relation: Relation;
      kind: 'children';
      read: Extract<PageRead, { kind: 'children' }>;
      column: string;
    }
  | {
      name: string;
      relation: Relation;
      kind: 'referenced';
      read: Extract<PageRead, { kind: 'referenced' }>;
      column: string;
    }
  | { name: string; relation: RowRelation; kind: 'perRow' };

/** What a read of a resource with these includes is made of, whatever its ids. */
export interface ReadParts {
  record: RecordValues;
  plans: IncludePlan[];
  /** `json_build_array(<record values>, <per-row extras>)` of the current row of the resource's table */
  row: SQL;
  /** `(...) AS inc_<i>, ...` over the parents whose ids `ids` (an SQL int array) holds; empty when nothing is read that way */
  includes(ids: SQL): SQL[];
}

export function partsDependOnCaller(resource: ResourceDeclaration, includes: readonly string[]): boolean {
  return computedDependsOnCaller(resource) || includes.some((name) => resource.relations[name]!.dependsOnCaller);
}

export function buildParts(resource: ResourceDeclaration, includes: readonly string[], who: Actor): ReadParts {
  const t = resource.table;
  const plans: IncludePlan[] = includes.map((name, i) => {
    const relation = resource.relations[name]!;
    if (!relation.page) return { name, relation, kind: 'perRow' };
    const read = relation.page;
    const column = `inc_${i}`;
    return read.kind === 'children'
      ? { name, relation, kind: 'children', read, column }
      : { name, relation, kind: 'referenced', read, column };
  });
  // the references `assemble` sets on each record
  const record = recordValues(
    shapeOf(resource, who),
    plans.filter((plan) => plan.relation.cardinality !== 'none').map((plan) => plan.name),
  );
  // Per-row extras, after the record's values, in the includes' order.
  const extras = plans.flatMap((plan) => {
    if (plan.kind === 'referenced') return [plan.read.refs(t)];
    if (plan.kind === 'perRow') return [plan.relation.recordsJson(t, who)];
    return [];
  });
  if (record.count + extras.length > 100) throw new Error(`${resource.type}: too many values for json_build_array`);
  return {
    record,
    plans,
    row: sql`json_build_array(${extras.length ? sql`${record.values}, ${sql.join(extras, sql`, `)}` : record.values})`,
    includes: (ids) =>
      plans.flatMap((plan) => {
        if (plan.kind === 'children') return [sql`${plan.read.rows(ids)} AS ${sql.identifier(plan.column)}`];
        if (plan.kind === 'referenced') return [sql`${plan.read.rows(t, ids)} AS ${sql.identifier(plan.column)}`];
        return [];
      }),
  };
}

const PAGE_IDS = sql.raw('ARRAY(SELECT page_id FROM page)');

/** A page's `SELECT` list, before its total: rendered once when it depends on nobody. */
export function pageSelect(parts: ReadParts, resource: ResourceDeclaration): SQL {
  const t = resource.table;
  return sql.join(
    [
      sql`(SELECT json_agg(${parts.row} ORDER BY page.position) FROM page JOIN ${t} ON ${t.id} = page.page_id) AS records`,
      ...parts.includes(PAGE_IDS),
    ],
    sql`, `,
  );
}

/** One record's statement: the row, and its includes over its id. */
export function oneStatement(parts: ReadParts, resource: ResourceDeclaration, scope: SQL, id: SQL): SQL {
  const t = resource.table;
  return sql`SELECT ${sql.join([sql`${parts.row} AS record`, ...parts.includes(sql`ARRAY[${id}::int]`)], sql`, `)}
    FROM ${t} WHERE ${scope} AND ${t.id} = ${id}`;
}

/** The page statement: `page`, the select list, the total. */
export function pageStatement(
  t: ResourceDeclaration['table'],
  scope: SQL,
  order: SQL,
  limit: SQL,
  offset: SQL,
  select: SQL,
): SQL {
  return sql`
    WITH page AS MATERIALIZED (
      SELECT ids.page_id, row_number() OVER () AS position
      FROM (SELECT ${t.id} AS page_id FROM ${t} WHERE ${scope} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}) ids
    )
    SELECT ${select}, (SELECT count(*)::int FROM ${t} WHERE ${scope}) AS total`;
}
