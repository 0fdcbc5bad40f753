// A stand-in for Neon's SQL-over-HTTP endpoint (`POST /sql`), local stack only, speaking the
// protocol of the installed @neondatabase/serverless 1.2.0 `neon()` and `poolQueryViaFetch`:
// headers Neon-Connection-String, Neon-Raw-Text-Output: true, Neon-Array-Mode: true and, for a
// batch, Neon-Batch-Isolation-Level / -Read-Only / -Deferrable; body {query, params} or
// {queries: [...]}; answers {fields, rows, rowCount, command, rowAsArray} or {results: [...]},
// values as Postgres text (the client parses them by dataTypeID), errors as 400 + Postgres fields.
// With a round trip `rttMs` (HELPDESK_DB_RTT_MS) each request, a batch as much as one query, is
// one exchange with a far database: half of it before it is handled, half before it is answered.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { pause } from './distance.js';

export interface RunningSqlOverHttp {
  port: number;
  url: string;
  /** Counts since start, for benchmarks: HTTP requests, and of those single queries and batches. */
  stats(): SqlOverHttpStats;
  stop(): Promise<void>;
}
export interface SqlOverHttpStats {
  /** POSTs received: each is one round trip of the Worker to the database */
  requests: number;
  /** requests carrying one {query, params} */
  queries: number;
  /** requests carrying {queries: [...]}, run as one transaction */
  batches: number;
  /** statements run, counting each statement of a batch */
  statements: number;
}
interface Query {
  query: string;
  params?: unknown[];
  arrayMode?: boolean;
}

const asText = { getTypeParser: () => (value: string) => value }; // no parsing: rows stay Postgres text
const ISOLATION: Record<string, string> = {
  ReadUncommitted: 'READ UNCOMMITTED',
  ReadCommitted: 'READ COMMITTED',
  RepeatableRead: 'REPEATABLE READ',
  Serializable: 'SERIALIZABLE',
};
const ERROR_FIELDS = [
  'code',
  'detail',
  'hint',
  'position',
  'internalPosition',
  'internalQuery',
  'severity',
  'where',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'file',
  'line',
  'routine',
] as const;

class BadRequest extends Error {}

const databaseOf = (connectionString: unknown) => {
  try {
    return new URL(String(connectionString)).pathname;
  } catch {
    return undefined;
  }
};

export async function startSqlOverHttp(opts: {
  databaseUrl: string;
  port?: number;
  rttMs?: number;
}): Promise<RunningSqlOverHttp> {
  const oneWayMs = (opts.rttMs ?? 0) / 2;
  const database = new URL(opts.databaseUrl).pathname;
  const pool = new pg.Pool({
    connectionString: opts.databaseUrl,
    max: 10,
    idleTimeoutMillis: 0,
    keepAlive: true,
    types: asText,
  });
  pool.on('error', () => {}); // an idle client lost (server stopped): the pool replaces it
  try {
    const warm = await Promise.all(Array.from({ length: 10 }, () => pool.connect())); // open them all now
    warm.forEach((c) => c.release());
  } catch (e) {
    await pool.end();
    throw e;
  }

  const run = async (db: pg.Pool | pg.PoolClient, q: Query, arrayMode: boolean) => {
    if (typeof q?.query !== 'string') throw new BadRequest('expected {query, params} or {queries: [...]}');
    // Extended protocol even without params, as Neon does: one statement per query.
    // (`queryMode` is in pg 8.23 but not in @types/pg, hence the widened type.)
    const config: pg.QueryArrayConfig & { queryMode: 'extended' } = {
      text: q.query,
      values: q.params ?? [],
      rowMode: 'array',
      queryMode: 'extended',
    };
    const r = await db.query(config);
    const rows = arrayMode ? r.rows : r.rows.map((row) => Object.fromEntries(r.fields.map((f, i) => [f.name, row[i]])));
    return { command: r.command, rowCount: r.rowCount, rows, fields: r.fields, rowAsArray: arrayMode };
  };

  const transaction = async (queries: Query[], h: http.IncomingHttpHeaders, arrayMode: boolean) => {
    const level = h['neon-batch-isolation-level'] as string | undefined;
    if (level !== undefined && !ISOLATION[level]) throw new BadRequest('invalid isolation level');
    const begin = [
      'BEGIN',
      level && `ISOLATION LEVEL ${ISOLATION[level]}`,
      h['neon-batch-read-only'] === 'true' && 'READ ONLY',
      h['neon-batch-deferrable'] === 'true' && 'DEFERRABLE',
    ]
      .filter(Boolean)
      .join(' ');
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query(begin);
      const results = [];
      for (const q of queries) results.push(await run(client, q, q?.arrayMode ?? arrayMode));
      await client.query('COMMIT');
      return { results };
    } catch (e) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw e;
    } finally {
      client.release(broken); // a connection that cannot roll back is dropped, not reused
    }
  };

  const counts: SqlOverHttpStats = { requests: 0, queries: 0, batches: 0, statements: 0 };
  const server = http.createServer({ keepAliveTimeout: 60_000 }, async (req, res) => {
    counts.requests++;
    if (oneWayMs > 0) await pause(oneWayMs);
    let status = 200;
    let out: unknown;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const h = req.headers;
      if (req.method !== 'POST') throw new BadRequest('POST a query to /sql');
      if (h['neon-raw-text-output'] !== 'true') throw new BadRequest('only Neon-Raw-Text-Output: true is supported');
      if (databaseOf(h['neon-connection-string']) !== database) {
        throw new BadRequest(`this endpoint serves only the database ${database.slice(1)}`);
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      const arrayMode = h['neon-array-mode'] === 'true';
      if (Array.isArray(body?.queries)) {
        counts.batches++;
        counts.statements += body.queries.length;
        out = await transaction(body.queries, h, arrayMode);
      } else {
        counts.queries++;
        counts.statements++;
        out = await run(pool, body, body?.arrayMode ?? arrayMode);
      }
    } catch (e) {
      const err = e as Error & Record<string, unknown>;
      const known = e instanceof pg.DatabaseError || e instanceof BadRequest || e instanceof SyntaxError;
      status = known ? 400 : 500;
      out = { message: err.message, ...Object.fromEntries(ERROR_FIELDS.map((k) => [k, err[k]])) };
    }
    const json = JSON.stringify(out);
    if (oneWayMs > 0) await pause(oneWayMs);
    res.writeHead(status, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(json),
      'Access-Control-Allow-Origin': '*',
    });
    res.end(json);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections(); // idle keep-alive sockets would hold close() open
    }).then(() => pool.end()));
  return { port, url: `http://127.0.0.1:${port}/sql`, stats: () => ({ ...counts }), stop };
}
