import { neon, Pool, type PoolClient } from '@neondatabase/serverless';
import type { SQL } from 'drizzle-orm';
import { drizzle as drizzleHttp } from 'drizzle-orm/neon-http';
import { applyLocalStackSettings, type LocalStackVars } from './local-stack-settings';
import { sqlState } from './errors';

/** Postgres's codes for a transaction lost to another (deadlock, serialization failure): run again, it may well pass. */
const LOST_RACE = new Set(['40P01', '40001']);
const TRANSACTION_ATTEMPTS = 3;
import { drizzle as drizzlePool, type NeonDatabase } from 'drizzle-orm/neon-serverless';

/** What the database part of the Worker's environment holds. */
export interface DatabaseEnv extends LocalStackVars {
  DATABASE_URL: string;
}

export type Transaction = Parameters<Parameters<NeonDatabase['transaction']>[0]>[0];

/**
 * Work every transaction does last, before it commits, given the environment its handle was
 * opened with; it answers what must wait for the commit (run once committed, never if not). Set
 * once as the Worker starts: the events handled in the transaction that wrote them
 * (src/events/in-transaction.ts).
 */
export type BeforeCommit = (tx: Transaction, env: DatabaseEnv, installationId: number | undefined) => Promise<Array<() => Promise<void>>>;

let beforeCommit: BeforeCommit | undefined;

export function setBeforeCommit(hook: BeforeCommit | undefined): void {
  beforeCommit = hook;
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
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
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

function queryFunction(url: string): QueryFunction {
  let query = queryFunctions.get(url);
  if (!query) queryFunctions.set(url, (query = neon(url)));
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

/** Counts the statements sent on each connection the pool hands out. */
function countingPool(pool: Pool, count: () => void): Pool {
  const connect = pool.connect.bind(pool) as () => Promise<PoolClient>;
  (pool as unknown as { connect: () => Promise<PoolClient> }).connect = async () => {
    const client = await connect();
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
export function openDatabase(env: DatabaseEnv): Database {
  applyLocalStackSettings(env);
  let trips = 0;
  const count = () => void trips++;
  let http: Database['http'] | undefined;
  let pool: Pool | undefined;
  const handle: Database = {
    get http() {
      if (!http) {
        const query = countingQuery(queryFunction(env.DATABASE_URL), count);
        http = Object.assign(drizzleHttp(query), {
          executeText: (text: string, params: unknown[]) => query.query(text, params, { fullResults: true }),
        }) as Database['http'];
      }
      return http;
    },
    async transaction(work) {
      pool ??= countingPool(new Pool({ connectionString: env.DATABASE_URL, max: 1 }), count);
      // the work, then the hook's, in one transaction; what the hook leaves for the commit comes back with the work's value
      const attempt = () =>
        drizzlePool(pool!).transaction(async (tx) => {
          const value = await work(tx);
          return { value, committed: beforeCommit ? await beforeCommit(tx, env, handle.installationId) : [] };
        });
      for (let tries = 1; ; tries++) {
        try {
          const { value, committed } = await attempt();
          // what the hook left for the commit never fails the transaction, which is done
          for (const run of committed) await run().catch(() => undefined);
          return value;
        } catch (error) {
          // a deadlock or a serialization failure rolled it all back: the work is run again, a few times
          if (tries >= TRANSACTION_ATTEMPTS || !LOST_RACE.has(sqlState(error).code ?? '')) throw error;
        }
      }
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
