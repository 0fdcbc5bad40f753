// The SQL the bare SQL worker runs, produced by the service's own code so that it is the very
// statement the service sends: `selectOne` (the GET) and `listBody` (the list, from the query
// parsed by the route's own schema) are handed a Queryable that only records what it is asked to
// execute: text the service prepared once (`executeText`), or drizzle SQL rendered exactly as
// drizzle's neon-http `db.execute` does (`dialect.sqlToQuery`).
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { Transaction } from '../src/db/client';
import { MADE_SLOT, RECORD_SLOT } from './workers/slots';
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

/** A write's statements, and which of them answers the id of the record it makes. */
export interface RecordedTransaction {
  statements: Statement[];
  madeBy: number;
}


/**
 * The statements a write runs in its transaction (without its BEGIN and its end), recorded as
 * drizzle renders them for the driver (its logger sees each statement), from a run against the
 * real database that is then rolled back. `work` answers the id of the record it made. Every
 * parameter equal to `recordId` becomes `RECORD_SLOT`, for the bare SQL Worker to put each
 * request's record in, and every one equal to the made id `MADE_SLOT`, for the id the replayed
 * write makes (the `id` that statement `madeBy` answers). A parameter naming either any
 * other way (in a text, a JSON list) is refused, as it could not be replayed; `recordId` must
 * differ from every other id the write names (`otherIds`: the installation, the caller).
 */
export async function recordedTransaction(databaseUrl: string, recordId: number, otherIds: number[], work: (tx: Transaction) => Promise<number>): Promise<RecordedTransaction> {
  if (otherIds.includes(recordId)) throw new Error(`record ${recordId} is also another id of the write: pick another`);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  // Every statement drizzle sends, with the rows it got back.
  const sent: { text: string; params: unknown[]; rows: Record<string, unknown>[] }[] = [];
  const query = client.query.bind(client) as (config: { text: string; values?: unknown[] } | string, values?: unknown[]) => Promise<pg.QueryResult>;
  (client as unknown as { query: typeof query }).query = async (config, values) => {
    const result = await query(config, values);
    const text = typeof config === 'string' ? config : config.text;
    const params = (typeof config === 'string' ? values : (config.values ?? values)) ?? [];
    sent.push({ text, params: [...params], rows: (result.rows ?? []) as Record<string, unknown>[] });
    return result;
  };
  const db = drizzle(client);
  const rolledBack = new Error('rolled back after recording');
  let made: number | undefined;
  try {
    await db.transaction(async (tx) => {
      made = await work(tx as unknown as Transaction);
      throw rolledBack;
    });
  } catch (error) {
    if (error !== rolledBack) throw error;
  } finally {
    await client.end();
  }
  const statements = sent.filter(({ text }) => !/^\s*(begin|commit|rollback)\b/i.test(text));
  const madeBy = statements.findIndex(({ rows }) => rows.some((row) => (Array.isArray(row) ? row[0] === made : Number(row.id) === made)));
  if (madeBy < 0) throw new Error(`no statement answered the id the write made (${made})`);
  const slots = new Map<unknown, string>([[recordId, RECORD_SLOT], [made, MADE_SLOT]]);
  return {
    madeBy,
    statements: statements.map(({ text, params }) => ({
      text,
      params: params.map((value) => {
        const slot = slots.get(value);
        if (slot) return slot;
        if (typeof value === 'string' && [recordId, made].some((id) => new RegExp(`\\b${id}\\b`).test(value))) {
          throw new Error(`an id is named inside a parameter of: ${text.slice(0, 80)}`);
        }
        return value;
      }),
    })),
  };
}
