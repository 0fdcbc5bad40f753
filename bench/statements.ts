// The SQL the bare SQL worker runs, produced by the service's own code so that it is the very
// statement the service sends: `selectOne` (the GET) and `listBody` (the list, from the query
// parsed by the route's own schema) are handed a Queryable that only records what it is asked to
// execute: text the service prepared once (`executeText`), or drizzle SQL rendered exactly as
// drizzle's neon-http `db.execute` does (`dialect.sqlToQuery`).
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Principal } from '../src/auth/principal';
import { credentialLookUp } from '../src/auth/authenticate';
import { companiesResource } from '../src/resources/companies/companies.resource';
import { listBody, schemasOf, selectOne } from '../src/engine';

export interface Statement {
  text: string;
  params: unknown[];
}
/** A statement whose parameter at `idParam` is the record id of the request. */
export interface GetStatement extends Statement {
  idParam: number;
}

const dialect = new PgDialect();
const ID_MARK = 2_000_000_001; // an id no seeded row has, to find its parameter

/**
 * A database handle that runs nothing and records what it is asked to run: a drizzle SQL object
 * (`execute`) rendered as drizzle's neon-http does, or text already rendered (`executeText`, as
 * the service's HTTP handle takes a statement it prepared once).
 */
export function recorder() {
  const statements: Statement[] = [];
  return {
    statements,
    db: {
      execute: async (query: SQL) => {
        const { sql: text, params } = dialect.sqlToQuery(query);
        statements.push({ text, params });
        return { rows: [] };
      },
      executeText: async (text: string, params: unknown[]) => (statements.push({ text, params }), { rows: [] }),
    },
  };
}

/** `GET /v2/companies/{id}.json` (no includes) for the caller, as `readOne` runs it. */
export async function companyGetStatement(who: Principal): Promise<GetStatement> {
  const { db, statements } = recorder();
  await selectOne(db, companiesResource, ID_MARK, { who, includes: [] });
  if (statements.length !== 1) throw new Error(`selectOne ran ${statements.length} statements, not 1`);
  const { text, params } = statements[0]!;
  const idParam = params.indexOf(ID_MARK);
  if (idParam < 0 || params.lastIndexOf(ID_MARK) !== idParam) throw new Error('the id is not exactly one parameter');
  return { text, params, idParam };
}

/**
 * The credential look-up of `authenticate` (src/auth/authenticate.ts), the same statement: what a
 * request costs when its key is not in the isolate's cache.
 */
export function credentialLookUpStatement(secretHash: string): Statement {
  const query = dialect.sqlToQuery(credentialLookUp(secretHash));
  return { text: query.sql, params: query.params };
}

/**
 * `GET /v2/companies.json?<query>` for the caller, as the list route runs it: the query string
 * is validated by the route's own schema, and `listBody` runs with a database handle that
 * records the statement (answering no rows). Every request of the benchmark asks the same page,
 * so the statement and its parameters are fixed.
 */
export async function companyListStatement(who: Principal, query: string): Promise<Statement> {
  const { db, statements } = recorder();
  const parsed = schemasOf(companiesResource).listQuery.parse(Object.fromEntries(new URLSearchParams(query)));
  const context = { var: { db: { http: db }, principal: who } };
  await listBody(context as never, companiesResource, who, parsed as never);
  if (statements.length !== 1) throw new Error(`listBody ran ${statements.length} statements, not 1`);
  return statements[0]!;
}
