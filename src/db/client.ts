import { neon, Pool, type PoolClient } from '@neondatabase/serverless';
import { sql, type SQL } from 'drizzle-orm';
import { drizzle as drizzleHttp } from 'drizzle-orm/neon-http';
import { drizzle as drizzlePool, type NeonDatabase } from 'drizzle-orm/neon-serverless';
import { PgDialect } from 'drizzle-orm/pg-core';
import { applyLocalStackSettings, type LocalStackVars } from './local-stack-settings';
import { IN_FAILED_TRANSACTION, sqlState } from './errors';
import { refusalOf } from './refusal';

/** Postgres's codes for a transaction lost to another (deadlock, serialization failure): run again, it may well pass. */
const LOST_RACE = new Set(['40P01', '40001']);
const TRANSACTION_ATTEMPTS = 3;

/**
 * How long one exchange over HTTP (a query or a batch) may take before it is given up: the fetch
 * is aborted and a request answers 503 (`database-unavailable.ts`). A batch is one transaction on
 * the endpoint's side: given up, it commits whole or not at all, never in part. A request's, and
 * a job's (whose statements may sweep a whole table).
 */
export const REQUEST_EXCHANGE_DEADLINE_MS = 10_000;
export const JOB_EXCHANGE_DEADLINE_MS = 120_000;

/**
 * How long an interactive transaction may take, from asking for its connection to its commit,
 * before its connection is closed (Postgres rolls back what it had not committed) and it fails
 * as the database not answering: a request's, and a job's (queue consumers and the cron, whom
 * no client waits for, and whose rounds make many exchanges).
 */
export const REQUEST_TRANSACTION_DEADLINE_MS = 20_000;
export const JOB_TRANSACTION_DEADLINE_MS = 120_000;

/** What a transaction given up at its deadline fails with: the driver's own words for a lost connection, so it reads as a 503. */
class TransactionDeadline extends Error {
  constructor(ms: number) {
    super(`Connection terminated: the transaction did not finish within ${ms} ms`);
  }
}

const dialect = new PgDialect();

/** The installations whose events the transaction `xact` (text) wrote that are still to dispatch: the drain is told of them. */
const pendingOf = (xact: SQL) =>
  sql`ARRAY(SELECT DISTINCT e.installation_id FROM events e WHERE e.xact = (${xact})::bigint AND e.dispatched_at IS NULL)`;

/** What the database part of the Worker's environment holds. */
export interface DatabaseEnv extends LocalStackVars {
  DATABASE_URL: string;
}

export type Transaction = Parameters<Parameters<NeonDatabase['transaction']>[0]>[0];

/**
 * What every transaction does last, in the statement that closes it (a batch's last statement,
 * an interactive transaction's before its commit): the work of the subscribers handled by the
 * writes themselves (src/events/in-statement.ts). Set once as the Worker starts.
 */
export interface SettleHook {
  /**
   * CTEs (`name AS (...)`) over the transaction `xact` (SQL, its id as text), and the columns of
   * the closing row they add; `installationId`: the one the handle works for, when known
   */
  settle(xact: SQL, installationId: number | undefined): { ctes: SQL[]; columns: SQL[] };
  /** what waits for the commit, given the closing row; it never fails */
  afterCommit(
    env: DatabaseEnv,
    row: Record<string, unknown>,
    installationId: number | undefined,
  ): Array<() => Promise<void>>;
}

let settleHook: SettleHook | undefined;

export function setSettleHook(hook: SettleHook | undefined): void {
  settleHook = hook;
}

/**
 * The statement that closes a transaction: the hook's work, the installations whose events it
 * wrote that some subscriber still wants (the drain is told, `pending`), and its id. `pending`
 * left out for work that reports no events of its own.
 */
function closingStatement(
  xact: SQL,
  hook: SettleHook | undefined,
  pending: boolean,
  installationId: number | undefined,
): SQL | undefined {
  const { ctes, columns } = hook?.settle(sql`(SELECT x.xact FROM x)`, installationId) ?? { ctes: [], columns: [] };
  if (!pending && ctes.length === 0 && columns.length === 0) return undefined;
  return sql`WITH x AS (SELECT ${xact} AS xact)${sql.join(ctes.map((cte) => sql`, ${cte}`))}
    SELECT x.xact${pending ? sql`, ${pendingOf(sql`x.xact`)} AS pending` : sql``}${sql.join(columns.map((column) => sql`, ${column}`))} FROM x`;
}

/** Starts `run` at once; answers a function that waits for it (its failure is the waiter's to hear). */
function startedNow(run: () => Promise<void>): () => Promise<void> {
  const running = run();
  running.catch(() => undefined);
  return () => running;
}

/** Anything a statement can run on: the HTTP client or an open transaction. */
export interface Queryable {
  execute(query: SQL): Promise<{ rows: Record<string, unknown>[] }>;
  /** a statement already rendered to text and parameters (see `preparedStatement`), where the client can take one */
  executeText?(text: string, params: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/**
 * The connection strategy (see docs/connection-strategy.md): single statements and reads go over
 * the driver's HTTP mode, which opens no connection of the Worker's own; interactive
 * transactions take one pooled WebSocket connection, opened on first use and closed with the
 * request. Never one connection per query.
 */
export interface Database {
  http: Queryable & HttpDatabase;
  /**
   * An interactive transaction on the handle's connection. `work` may run more than once (a race
   * lost to another transaction runs it again): it must start from what it was given, never from
   * what an attempt before it changed.
   */
  /** `quiet`: the work reports no events of its own (the drain, which finds what its subscribers wrote itself) */
  transaction<T>(work: (tx: Transaction) => Promise<T>, options?: { quiet?: boolean }): Promise<T>;
  /**
   * The statements in order, as one transaction in one HTTP request: one round trip, all or
   * nothing. A check among them (`refusal.ts`) stops it with its 4xx; a race lost to another
   * transaction sends it again. Answers each statement's rows. The events it wrote say
   * themselves which installations' drains to ask for (`eventInstallations`): no list is kept by hand.
   */
  batch(statements: readonly SQL[]): Promise<Record<string, unknown>[][]>;
  /**
   * Waits for what a request's batches started after their commit (their subscribers'
   * `afterCommit`, queue messages), once the answer is sent: started as each batch commits, so a
   * delivery's message leaves while the answer is made, and nobody waits for it. A job's handle
   * runs it as each batch commits.
   */
  afterBatches(): Promise<void>;
  /** Round trips to the database so far: statements over HTTP, and statements (with BEGIN and COMMIT) on the connection. */
  roundTrips(): number;
  /** Installations whose events this handle wrote: the queue is told to drain them once the work is done. */
  eventInstallations: Set<number>;
  /**
   * The installation this handle works for, once known (a teammate's request sets it): the work
   * before a commit may then skip what it knows the installation has no use for.
   */
  installationId?: number;
  /** Ends the WebSocket pool if one was opened. */
  close(): Promise<void>;
}

type HttpDatabase = ReturnType<typeof drizzleHttp>;
type QueryFunction = ReturnType<typeof neon>;

/**
 * The driver's query function per database address, kept for the isolate's life: `neon()` opens
 * nothing (each query is its own fetch). Drizzle is built per handle, over a function that counts
 * the handle's round trips, without a relational schema (we use none).
 */
const queryFunctions = new Map<string, QueryFunction>();

function queryFunction(url: string, deadlineMs: number): QueryFunction {
  const key = `${deadlineMs} ${url}`;
  let query = queryFunctions.get(key);
  if (!query) {
    // the driver spreads these into each fetch's options: a deadline of its own for every exchange
    const fetchOptions = {
      get signal() {
        return AbortSignal.timeout(deadlineMs);
      },
    };
    queryFunctions.set(key, (query = neon(url, { fetchOptions })));
  }
  return query;
}

/** The query function, counting each statement it sends into `count`. */
function countingQuery(query: QueryFunction, count: () => void): QueryFunction {
  const counted = ((strings: TemplateStringsArray, ...values: unknown[]) => {
    count();
    return query(strings, ...values);
  }) as QueryFunction;
  return Object.assign(counted, query, {
    query: (text: string, params?: unknown[], options?: object) => {
      count();
      return (query.query as (...args: unknown[]) => unknown)(text, params, options);
    },
    // a batch of statements in one request: one round trip
    transaction: (...args: unknown[]) => {
      count();
      return (query.transaction as (...args: unknown[]) => unknown)(...args);
    },
  }) as QueryFunction;
}

/** Counts the statements sent on each connection the pool hands out, and keeps the connections for `closeAll`. */
function countingPool(pool: Pool, count: () => void, opened: Set<PoolClient>): Pool {
  const connect = pool.connect.bind(pool) as () => Promise<PoolClient>;
  (pool as unknown as { connect: () => Promise<PoolClient> }).connect = async () => {
    const client = await connect();
    opened.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      count();
      return query(...args);
    };
    return client;
  };
  return pool;
}

/**
 * The handle of a request or a job. Nothing is built until first used: a request that never
 * reaches the database (a script, the document, a CORS preflight) costs nothing here.
 */
export function openDatabase(env: DatabaseEnv, options: { forRequest?: boolean } = {}): Database {
  applyLocalStackSettings(env);
  const deadlineMs = options.forRequest ? REQUEST_TRANSACTION_DEADLINE_MS : JOB_TRANSACTION_DEADLINE_MS;
  const exchangeMs = options.forRequest ? REQUEST_EXCHANGE_DEADLINE_MS : JOB_EXCHANGE_DEADLINE_MS;
  let trips = 0;
  const count = () => void trips++;
  let http: Database['http'] | undefined;
  let pool: Pool | undefined;
  const afterCommits: Array<() => Promise<void>> = [];
  const connections = new Set<PoolClient>();
  /** Past the deadline: the connection is closed under the work, never reused, and Postgres rolls back. */
  const withinDeadline = <T>(work: Promise<T>): Promise<T> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const open = pool;
        pool = undefined;
        for (const client of connections) (client as unknown as { end(): Promise<void> }).end().catch(() => undefined);
        connections.clear();
        void open?.end().catch(() => undefined);
        reject(new TransactionDeadline(deadlineMs));
      }, deadlineMs);
    });
    work.catch(() => undefined); // what it fails with once given up is nobody's to hear
    return Promise.race([work, expired]).finally(() => clearTimeout(timer));
  };
  /** The installations the closing row names as pending, and the hook's work after the commit. */
  const settled = (row: Record<string, unknown> | undefined) => {
    for (const installation of (row?.pending as number[] | undefined) ?? [])
      handle.eventInstallations.add(Number(installation));
    return row && settleHook ? settleHook.afterCommit(env, row, handle.installationId) : [];
  };
  /** An interactive transaction closed by the closing statement, run again after a lost race. */
  const transact = async <T>(work: (tx: Transaction) => Promise<T>, quiet = false): Promise<T> => {
    const attempt = () => {
      pool ??= countingPool(new Pool({ connectionString: env.DATABASE_URL, max: 1 }), count, connections);
      return withinDeadline(
        drizzlePool(pool).transaction(async (tx) => {
          const value = await work(tx);
          const closing = closingStatement(
            sql`pg_current_xact_id_if_assigned()::text`,
            settleHook,
            !quiet,
            handle.installationId,
          );
          // none when work that caught its own failure left the transaction aborted (its commit rolls back)
          const row =
            closing === undefined
              ? undefined
              : await tx.execute(closing).then(
                  ({ rows }) => rows[0],
                  (error: unknown) => {
                    if (sqlState(error).code === IN_FAILED_TRANSACTION) return undefined;
                    throw error;
                  },
                );
          return { value, row };
        }),
      );
    };
    for (let tries = 1; ; tries++) {
      try {
        const { value, row } = await attempt();
        // what the hook left for the commit never fails the transaction, which is done
        for (const run of settled(row)) await run();
        return value;
      } catch (error) {
        // a deadlock or a serialization failure rolled it all back: the work is run again, a few times
        if (tries >= TRANSACTION_ATTEMPTS || !LOST_RACE.has(sqlState(error).code ?? '')) throw error;
      }
    }
  };
  const handle: Database = {
    get http() {
      if (!http) {
        const query = countingQuery(queryFunction(env.DATABASE_URL, exchangeMs), count);
        http = Object.assign(drizzleHttp(query), {
          executeText: (text: string, params: unknown[]) => query.query(text, params, { fullResults: true }),
        }) as Database['http'];
      }
      return http;
    },
    transaction: (work, options) => transact(work, options?.quiet === true),
    async batch(statements) {
      if (statements.length === 0) return [];
      const raw = queryFunction(env.DATABASE_URL, exchangeMs);
      const all = [
        ...statements,
        closingStatement(sql`pg_current_xact_id_if_assigned()::text`, settleHook, true, handle.installationId)!,
      ];
      for (let tries = 1; ; tries++) {
        try {
          count();
          const queries = all.map((statement) => {
            const { sql: text, params } = dialect.sqlToQuery(statement);
            return raw.query(text, params);
          });
          const results = (await raw.transaction(queries, { fullResults: true })) as unknown as Array<{
            rows: Record<string, unknown>[];
          }>;
          const rows = results.map((result) => result.rows);
          const after = settled(rows.pop()![0]);
          // a request's start now and are waited for once its answer is sent (their queue messages
          // leave while the answer is made); a job's are run now
          if (options.forRequest) afterCommits.push(...after.map(startedNow));
          else for (const run of after) await run();
          return rows;
        } catch (error) {
          const refusal = refusalOf(error);
          if (refusal) throw refusal;
          if (tries >= TRANSACTION_ATTEMPTS || !LOST_RACE.has(sqlState(error).code ?? '')) throw error;
        }
      }
    },
    async afterBatches() {
      for (const run of afterCommits.splice(0)) await run();
    },
    roundTrips: () => trips,
    eventInstallations: new Set(),
    async close() {
      const open = pool;
      pool = undefined;
      await open?.end();
    },
  };
  return handle;
}
