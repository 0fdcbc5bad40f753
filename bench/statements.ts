// The SQL the bare SQL worker runs, produced by the service's own code so that it is the very
// statement the service sends: `selectOne` is handed a Queryable that only records what it is
// asked to execute, and drizzle's PgDialect renders that exactly as drizzle's neon-http
// `db.execute` does (`dialect.sqlToQuery`).
import { and, eq, gt, isNull, or, sql, type SQL } from 'drizzle-orm';
import { PgDialect, QueryBuilder } from 'drizzle-orm/pg-core';
import type { Principal } from '../src/auth/principal';
import { credentials, users } from '../src/db/schema';
import { companiesResource } from '../src/resources/companies/companies.resource';
import { selectOne } from '../src/resources/engine/queries';

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

/** `GET /v2/companies/{id}.json` (no includes) for the caller, as `readOne` runs it. */
export async function companyGetStatement(who: Principal): Promise<GetStatement> {
  let captured: SQL | undefined;
  await selectOne(
    { execute: async (query: SQL) => ((captured = query), { rows: [] }) },
    companiesResource,
    ID_MARK,
    { who, includes: [] },
  );
  if (!captured) throw new Error('selectOne ran no statement');
  const { sql: text, params } = dialect.sqlToQuery(captured);
  const idParam = params.indexOf(ID_MARK);
  if (idParam < 0 || params.lastIndexOf(ID_MARK) !== idParam) throw new Error('the id is not exactly one parameter');
  return { text, params, idParam };
}

/**
 * The credential look-up of `authenticate` (src/auth/authenticate.ts) rebuilt with the same
 * builder calls: what a request costs when its key is not in the isolate's cache.
 */
export function credentialLookUpStatement(secretHash: string): Statement {
  const query = new QueryBuilder()
    .select({ installationId: credentials.installationId, userId: credentials.userId, role: users.role, expiresAt: credentials.expiresAt })
    .from(credentials)
    .innerJoin(users, and(eq(users.id, credentials.userId), eq(users.installationId, credentials.installationId)))
    .where(
      and(
        eq(credentials.secretHash, secretHash),
        isNull(credentials.revokedAt),
        or(isNull(credentials.expiresAt), gt(credentials.expiresAt, sql`now()`)),
        eq(users.state, 'active'),
      ),
    )
    .toSQL();
  return { text: query.sql, params: query.params };
}
