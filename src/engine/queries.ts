import { and, fillPlaceholders, sql, type Column, type Query, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Actor } from '../auth/principal';
import type { Queryable } from '../db/client';
import { finishRecord, recordValues } from './record-json';
import { computedDependsOnCaller, shapeOf } from './resource';
import type { PageRead, RecordValues, Relation, ResourceDeclaration, RowRelation } from './types';
import { recordScope } from './scope';

interface RecordSelection {
  who: Actor;
  where?: SQL;
  withDeleted?: boolean;
  includes: readonly string[];
}

export interface Page {
  limit: number;
  offset: number;
  order: { expr: Column | SQL; descending: boolean } | undefined;
}

/**
 * A record as Postgres built it (`record-json.ts`): its shape is the resource's record schema,
 * which the test harness checks every answer against, not something TypeScript can see.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type WireRecord = Record<string, any>;

export interface RecordsResult {
  records: WireRecord[];
  included: Record<string, WireRecord[]>;
  total: number;
}

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
type IncludePlan =
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
interface ReadParts {
  record: RecordValues;
  plans: IncludePlan[];
  /** `json_build_array(<record values>, <per-row extras>)` of the current row of the resource's table */
  row: SQL;
  /** `(...) AS inc_<i>, ...` over the parents whose ids `ids` (an SQL int array) holds; empty when nothing is read that way */
  includes(ids: SQL): SQL[];
}

function partsDependOnCaller(resource: ResourceDeclaration, includes: readonly string[]): boolean {
  return computedDependsOnCaller(resource) || includes.some((name) => resource.relations[name]!.dependsOnCaller);
}

function buildParts(resource: ResourceDeclaration, includes: readonly string[], who: Actor): ReadParts {
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

const dialect = new PgDialect();

/**
 * The includes in the order the declaration names its relations. Every read goes through it, so
 * the statements and their parts are cached once per set of includes, however a client orders
 * them (each order its own entry would let a client fill the isolate's memory with GETs), and the
 * answer (the `included` keys, the references on each record) is the same whatever the order.
 */
export function canonicalIncludes(resource: ResourceDeclaration, includes: readonly string[]): readonly string[] {
  return Object.keys(resource.relations).filter((name) => includes.includes(name));
}

/**
 * How many statements (or parts) each cache keeps. An entry is some 10 to 50 kB (a ticket with
 * every include, its text and its parts), and a client can ask every subset of a resource's
 * includes (2,048 for a ticket): unbounded, that fills the isolate's 128 MB. Past the bound the
 * least recently used entry leaves; a read it served is rendered again when asked.
 */
export const STATEMENT_CACHE_ENTRIES = 128;

/** Entries by key, at most `STATEMENT_CACHE_ENTRIES`, the least recently used leaving first. */
class StatementCache<T> {
  readonly entries = new Map<string, T>();

  get(key: string, make: () => T): T {
    let entry = this.entries.get(key);
    if (entry !== undefined) {
      this.entries.delete(key); // to the back: the most recently used
    } else {
      entry = make();
      if (this.entries.size >= STATEMENT_CACHE_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(key, entry);
    return entry;
  }
}

/** A number per resource declaration, for the caches' keys (two declarations may share a type name). */
const resourceKeys = new WeakMap<ResourceDeclaration, number>();
let resourcesKeyed = 0;
const keyOf = (resource: ResourceDeclaration) => {
  let key = resourceKeys.get(resource);
  if (key === undefined) resourceKeys.set(resource, (key = resourcesKeyed++));
  return key;
};

/**
 * A cache entry per resource and includes, which must be in their canonical order
 * (`canonicalIncludes`), and per caller shape (`callerShape`) where the entry depends on it.
 */
function byIncludes<T>(
  cache: StatementCache<T>,
  resource: ResourceDeclaration,
  includes: readonly string[],
  make: () => T,
  shape = '',
): T {
  return cache.get(`${keyOf(resource)}|${shape}|${includes.join(',')}`, make);
}

/** The parts of a read, built once per resource and includes when they depend on nobody. */
const cachedParts = new StatementCache<ReadParts>();

function partsOf(resource: ResourceDeclaration, includes: readonly string[], who: Actor): ReadParts {
  if (partsDependOnCaller(resource, includes)) return buildParts(resource, includes, who);
  return byIncludes(cachedParts, resource, includes, () => buildParts(resource, includes, who));
}

const PAGE_IDS = sql.raw('ARRAY(SELECT page_id FROM page)');

/** A page's `SELECT` list, before its total: rendered once when it depends on nobody. */
function pageSelect(parts: ReadParts, resource: ResourceDeclaration): SQL {
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
function oneStatement(parts: ReadParts, resource: ResourceDeclaration, scope: SQL, id: SQL): SQL {
  const t = resource.table;
  return sql`SELECT ${sql.join([sql`${parts.row} AS record`, ...parts.includes(sql`ARRAY[${id}::int]`)], sql`, `)}
    FROM ${t} WHERE ${scope} AND ${t.id} = ${id}`;
}

type Row = readonly unknown[];

/** The ids a row names through a `referencedBy` relation, as `id IN (...) ORDER BY id` finds them: ascending, each once. */
function namedIds(values: readonly (number | null)[]): number[] {
  const ids = values.filter((id): id is number => id !== null).sort((a, b) => a - b);
  return ids.filter((id, i) => i === 0 || id !== ids[i - 1]);
}

/**
 * The wire records of the rows (each a `<row>` array), with what they include from `found` (the
 * statement's row, holding the include columns): each record's related records in id order, put
 * into `included` once each (in the order the records name them) and referenced on the record.
 */
function assemble(
  parts: ReadParts,
  rows: readonly Row[],
  found: Record<string, unknown> | undefined,
): Omit<RecordsResult, 'total'> {
  const { record: own, plans } = parts;
  // Each include's records: by parent id (children), or by id (referenced).
  const byParent = new Map<string, Map<number, WireRecord[]>>();
  // The meta of the link a related record was reached through (a member's access), for its reference.
  const linkMetaOf = new WeakMap<WireRecord, Record<string, unknown>>();
  const byId = new Map<string, Map<number, WireRecord>>();
  if (rows.length) {
    for (const plan of plans) {
      if (plan.kind === 'perRow') continue;
      const all = (found?.[plan.column] ?? []) as Row[];
      if (plan.kind === 'children') {
        const groups = new Map<number, WireRecord[]>();
        const offset = plan.read.linkMeta ? 2 : 1;
        for (const values of all) {
          const parentId = values[0] as number;
          const item = plan.read.record.decode(values, offset);
          if (plan.read.linkMeta) linkMetaOf.set(item, values[1] as Record<string, unknown>);
          const group = groups.get(parentId);
          if (group) group.push(item);
          else groups.set(parentId, [item]);
        }
        byParent.set(plan.name, groups);
      } else {
        const records = new Map<number, WireRecord>();
        for (const values of all) {
          const item = plan.read.record.decode(values, 0);
          records.set(item.id as number, item);
        }
        byId.set(plan.name, records);
      }
    }
  }
  const included: Record<string, Map<number, WireRecord>> = {};
  const records = rows.map((values) => {
    const record = own.decode(values, 0);
    let extra = own.count;
    for (const plan of plans) {
      const { relation } = plan;
      let related: WireRecord[];
      if (plan.kind === 'children') related = byParent.get(plan.name)!.get(record.id as number) ?? [];
      else if (plan.kind === 'referenced') {
        const named = byId.get(plan.name)!;
        related = namedIds(values[extra++] as (number | null)[]).flatMap((id) => named.get(id) ?? []);
      } else related = (values[extra++] as WireRecord[]).map(finishRecord);
      const seen = (included[relation.type] ??= new Map());
      for (const item of related) seen.set(item.id as number, item);
      if (relation.cardinality === 'none') continue;
      const refs = related.map((item) => {
        const meta = linkMetaOf.get(item);
        return meta ? { id: item.id, type: relation.type, meta } : { id: item.id, type: relation.type };
      });
      record[plan.name] = relation.cardinality === 'many' ? refs : (refs[0] ?? null);
    }
    return record;
  });
  return {
    records,
    included: Object.fromEntries(Object.entries(included).map(([type, seen]) => [type, [...seen.values()]])),
  };
}

function scopeOf(resource: ResourceDeclaration, selection: RecordSelection): SQL {
  return and(recordScope(resource, selection.who, selection.withDeleted), selection.where)!;
}

/** A statement rendered once (`preparedOne`), with the parts its answer is assembled by. */
interface PreparedRead {
  query: Query;
  parts: ReadParts;
}

const preparedOnes = new StatementCache<PreparedRead>();

/**
 * What a statement's text may depend on in its caller: their kind and role (an agent's scope is
 * another rule than an owner's), never their ids, which `callerTemplate` leaves as placeholders.
 */
function callerShape(resource: ResourceDeclaration, includes: readonly string[], who: Actor): string {
  if (!resource.scope && !partsDependOnCaller(resource, includes)) return 'anyone';
  return who.kind === 'teammate'
    ? `teammate:${who.role}`
    : `system:${who.part}:${who.userId === null ? 'nobody' : 'user'}`;
}

/**
 * The caller with their ids as placeholders: a statement rendered for it serves every caller of
 * its shape. Scope rules and computed fields only put a caller's ids into SQL (test/engine/
 * prepared-statements.test.ts checks, for every resource and caller shape, that the filled
 * statement is the one rendered for the caller itself).
 */
function callerTemplate(who: Actor): Actor {
  const placeholder = (name: string) => sql.placeholder(name) as unknown as number;
  return {
    ...who,
    installationId: placeholder('installationId'),
    userId: who.userId === null ? null : placeholder('userId'),
  } as Actor;
}

/** The values of `callerTemplate`'s placeholders. */
function callerValues(who: Actor): Record<string, unknown> {
  return { installationId: who.installationId, userId: who.userId };
}

/**
 * The get-by-id statement rendered to text once per resource, includes and caller shape, with
 * the installation, the caller and the id left as parameters: rendering it is the largest part
 * of a GET's own CPU (docs/benchmarks.md).
 */
function preparedOne(resource: ResourceDeclaration, includes: readonly string[], who: Actor): PreparedRead {
  return byIncludes(
    preparedOnes,
    resource,
    includes,
    () => {
      const template = callerTemplate(who);
      const parts = partsOf(resource, includes, template);
      return {
        parts,
        query: dialect.sqlToQuery(
          oneStatement(parts, resource, recordScope(resource, template), sql`${sql.placeholder('id')}`),
        ),
      };
    },
    callerShape(resource, includes, who),
  );
}

/**
 * `selectOne` as a statement to send in a batch, the id given as SQL (a new record's, recalled
 * from an earlier statement), and how to read its answer.
 */
export function oneRecordRead(
  resource: ResourceDeclaration,
  who: Actor,
  id: SQL,
  includes: readonly string[],
): { statement: SQL; result(rows: readonly Record<string, unknown>[]): RecordsResult | undefined } {
  const parts = partsOf(resource, canonicalIncludes(resource, includes), who);
  return {
    statement: oneStatement(parts, resource, recordScope(resource, who), id),
    result(rows) {
      const row = rows[0];
      return row ? { ...assemble(parts, [row.record as Row], row), total: 1 } : undefined;
    },
  };
}

/** One record by id, with what it includes: one statement. */
export async function selectOne(
  db: Queryable,
  resource: ResourceDeclaration,
  id: number,
  selection: RecordSelection,
): Promise<RecordsResult | undefined> {
  const includes = canonicalIncludes(resource, selection.includes);
  let parts: ReadParts;
  let rows: Record<string, unknown>[];
  if (!selection.where && !selection.withDeleted && db.executeText) {
    const prepared = preparedOne(resource, includes, selection.who);
    parts = prepared.parts;
    ({ rows } = await db.executeText(
      prepared.query.sql,
      fillPlaceholders(prepared.query.params, { ...callerValues(selection.who), id }),
    ));
  } else {
    parts = partsOf(resource, includes, selection.who);
    ({ rows } = await db.execute(oneStatement(parts, resource, scopeOf(resource, selection), sql`${id}`)));
  }
  const row = rows[0];
  if (!row) return undefined;
  return { ...assemble(parts, [row.record as Row], row), total: 1 };
}

/** The page statement: `page`, the select list, the total. */
function pageStatement(
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

/**
 * A page's `SELECT` list rendered once per resource, includes and caller shape (`callerTemplate`),
 * for a page whose filter and order are rendered per request (`spliced` into them): the list is
 * the bulk of the statement's text, and of the CPU it takes to render. None when its text cannot
 * be spliced.
 */
const preparedSelects = new StatementCache<PreparedRead | null>();

function preparedSelect(
  resource: ResourceDeclaration,
  includes: readonly string[],
  who: Actor,
): PreparedRead | undefined {
  const entry = byIncludes(
    preparedSelects,
    resource,
    includes,
    () => {
      const parts = partsOf(resource, includes, callerTemplate(who));
      const query = dialect.sqlToQuery(pageSelect(parts, resource));
      return spliceable(query) ? { parts, query } : null;
    },
    callerShape(resource, includes, who),
  );
  return entry ?? undefined;
}

const SELECT_MARK = '/* the page select */';
const PARAMETER = /\$(\d+)/g;

/** Whether every `$` of a rendered fragment's text is one of its parameters (nothing in a literal or a name would be renumbered). */
function spliceable(fragment: Query): boolean {
  const marks = fragment.sql.split('$').length - 1;
  const named = [...fragment.sql.matchAll(PARAMETER)].map(([, n]) => Number(n));
  return marks === named.length && named.every((n) => n >= 1 && n <= fragment.params.length);
}

/** `around` with `fragment` (its placeholders filled from `values`) in place of `SELECT_MARK`, the fragment's parameters numbered after its own. */
function spliced(around: Query, fragment: Query, values: Record<string, unknown>): { sql: string; params: unknown[] } {
  const shift = around.params.length;
  const text = fragment.sql.replace(PARAMETER, (_, n: string) => `$${Number(n) + shift}`);
  const [before, after, ...more] = around.sql.split(SELECT_MARK);
  if (after === undefined || more.length) throw new Error('a page statement without exactly one place for its select');
  return { sql: before + text + after, params: [...around.params, ...fillPlaceholders(fragment.params, values)] };
}

const preparedPages = new StatementCache<PreparedRead>();

/**
 * A plain page (no filter, the default order) rendered to text once per resource, includes and
 * caller shape, like `preparedOne`, with the installation, the caller, the limit and the offset as
 * parameters.
 */
function preparedPage(resource: ResourceDeclaration, includes: readonly string[], who: Actor): PreparedRead {
  return byIncludes(
    preparedPages,
    resource,
    includes,
    () => {
      const t = resource.table;
      const template = callerTemplate(who);
      const parts = partsOf(resource, includes, template);
      const select = pageSelect(parts, resource);
      const limit = sql`${sql.placeholder('limit')}`;
      return {
        parts,
        query: dialect.sqlToQuery(
          pageStatement(
            t,
            recordScope(resource, template),
            sql`${t.id} ASC`,
            limit,
            sql`${sql.placeholder('offset')}`,
            select,
          ),
        ),
      };
    },
    callerShape(resource, includes, who),
  );
}

/**
 * A page of records with what they include and the total that matches: one statement, whatever
 * the page size and the includes. `page` picks the page's ids in order (an index can serve it
 * and stop at the page); only those records are built; the total is one count, run once.
 */
export async function selectPage(
  db: Queryable,
  resource: ResourceDeclaration,
  selection: RecordSelection,
  page: Page,
): Promise<RecordsResult> {
  const t = resource.table;
  const includes = canonicalIncludes(resource, selection.includes);
  let parts: ReadParts;
  let rows: Record<string, unknown>[];
  const direction = page.order?.descending ? sql`DESC` : sql`ASC`;
  const order = page.order ? sql`${page.order.expr} ${direction}, ${t.id} ${direction}` : sql`${t.id} ASC`;
  const plain = !selection.where && !selection.withDeleted && !page.order;
  const select = db.executeText && !plain ? preparedSelect(resource, includes, selection.who) : undefined;
  if (db.executeText && plain) {
    const prepared = preparedPage(resource, includes, selection.who);
    parts = prepared.parts;
    const values = { ...callerValues(selection.who), limit: page.limit, offset: page.offset };
    ({ rows } = await db.executeText(prepared.query.sql, fillPlaceholders(prepared.query.params, values)));
  } else if (db.executeText && select) {
    parts = select.parts;
    const around = dialect.sqlToQuery(
      pageStatement(
        t,
        scopeOf(resource, selection),
        order,
        sql`${page.limit}`,
        sql`${page.offset}`,
        sql.raw(SELECT_MARK),
      ),
    );
    const statement = spliced(around, select.query, callerValues(selection.who));
    ({ rows } = await db.executeText(statement.sql, statement.params));
  } else {
    // a transaction's handle takes drizzle SQL only, and a select that cannot be spliced is rendered whole
    parts = partsOf(resource, includes, selection.who);
    ({ rows } = await db.execute(
      pageStatement(
        t,
        scopeOf(resource, selection),
        order,
        sql`${page.limit}`,
        sql`${page.offset}`,
        pageSelect(parts, resource),
      ),
    ));
  }
  const row = rows[0];
  return { ...assemble(parts, (row?.records ?? []) as Row[], row), total: (row?.total as number | undefined) ?? 0 };
}

/** How many entries each statement cache holds now (for the tests of its bound). */
export function statementCacheSizes(): Record<string, number> {
  return {
    parts: cachedParts.entries.size,
    ones: preparedOnes.entries.size,
    pages: preparedPages.entries.size,
    selects: preparedSelects.entries.size,
  };
}
