import { and, fillPlaceholders, sql, type Column, type Query, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Actor } from '../auth/principal';
import type { Queryable } from '../db/client';
import { assemble, type RecordsResult, type Row } from './assemble';
import { callerShape, callerTemplate, callerValues, SELECT_MARK, spliceable, spliced } from './caller-template';
import { buildParts, oneStatement, pageSelect, pageStatement, partsDependOnCaller, type ReadParts } from './read-parts';
import { recordScope } from './scope';
import { byIncludes, StatementCache } from './statement-cache';
import type { ResourceDeclaration } from './types';

export type { RecordsResult, WireRecord } from './assemble';
export { STATEMENT_CACHE_ENTRIES } from './statement-cache';

/*
 * The reads: a page of records or one, each one statement (built in `read-parts.ts`), rendered to
 * text once per resource, includes and caller shape where it can be (`caller-template.ts`, the
 * caches of `statement-cache.ts`), and its rows assembled into wire records (`assemble.ts`).
 */

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

/** The parts of a read, built once per resource and includes when they depend on nobody. */
const cachedParts = new StatementCache<ReadParts>();

function partsOf(resource: ResourceDeclaration, includes: readonly string[], who: Actor): ReadParts {
  if (partsDependOnCaller(resource, includes)) return buildParts(resource, includes, who);
  return byIncludes(cachedParts, resource, includes, () => buildParts(resource, includes, who));
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
