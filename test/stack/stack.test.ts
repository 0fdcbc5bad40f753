// The local stack, driven by the real Neon driver in Node: Pool over the WebSocket proxy,
// neon() over the SQL-over-HTTP stand-in, and a clean stop.
import { Pool, neon, neonConfig } from '@neondatabase/serverless';
import { existsSync, readdirSync } from 'node:fs';
import net from 'node:net';
import pg from 'pg';
import { sql as dsql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/neon-http';
import { jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ws from 'ws';
import { startLocalStack, type LocalStack } from '../../scripts/stack/index.js';

let stack: LocalStack;

beforeAll(async () => {
  stack = await startLocalStack({ purpose: 'test' });
  neonConfig.webSocketConstructor = ws;
  neonConfig.wsProxy = (host, port) => `127.0.0.1:${stack.wsProxyPort}/v2?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
  neonConfig.fetchEndpoint = stack.sqlHttpUrl;
}, 60_000);

afterAll(() => stack?.stop(), 30_000);

describe('Pool over the WebSocket proxy', () => {
  it('runs queries', async () => {
    const pool = new Pool({ connectionString: stack.databaseUrl });
    try {
      const { rows } = await pool.query('SELECT $1::int + 1 AS n, current_database() AS db', [41]);
      expect(rows).toEqual([{ n: 42, db: new URL(stack.databaseUrl).pathname.slice(1) }]);
    } finally {
      await pool.end();
    }
  });

  it('runs an interactive transaction that rolls back', async () => {
    const pool = new Pool({ connectionString: stack.databaseUrl });
    try {
      await pool.query('CREATE TABLE pool_tx (id int PRIMARY KEY)');
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('INSERT INTO pool_tx VALUES (1), (2)');
        expect((await client.query('SELECT count(*)::int AS n FROM pool_tx')).rows[0].n).toBe(2);
        await client.query('ROLLBACK');
      } finally {
        client.release();
      }
      expect((await pool.query('SELECT count(*)::int AS n FROM pool_tx')).rows[0].n).toBe(0);
    } finally {
      await pool.end();
    }
  });

  it('refuses targets that are not on loopback', async () => {
    const socket = new ws(`ws://127.0.0.1:${stack.wsProxyPort}/v2?address=example.com:5432`);
    const status = await new Promise((resolve) =>
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode)),
    );
    expect(status).toBe(403);
  });
});

describe('neon() over the SQL-over-HTTP endpoint', () => {
  const sql = () => neon(stack.databaseUrl);

  it('returns values typed by the client from Postgres text', async () => {
    const rows = await sql()`SELECT
      1::int4 AS int4, 9007199254740993::int8 AS int8, true AS yes, 'héllo ✓' AS text,
      '2024-01-02T03:04:05.678Z'::timestamptz AS at, '{"a":[1,"x"]}'::json AS json,
      '{"b":{"c":null}}'::jsonb AS jsonb, ARRAY[1,2,3]::int4[] AS ints, NULL::text AS nothing`;
    expect(rows).toEqual([
      {
        int4: 1,
        int8: '9007199254740993',
        yes: true,
        text: 'héllo ✓',
        at: new Date('2024-01-02T03:04:05.678Z'),
        json: { a: [1, 'x'] },
        jsonb: { b: { c: null } },
        ints: [1, 2, 3],
        nothing: null,
      },
    ]);
  });

  it('runs parameterised queries and reports full results', async () => {
    const name = "O'Brien; DROP TABLE x";
    expect(await sql()`SELECT ${name}::text AS name, ${20}::int + 1 AS n`).toEqual([{ name, n: 21 }]);
    const full = await sql().query('SELECT $1::int AS n FROM generate_series(1, 3)', [7], { fullResults: true });
    expect(full).toMatchObject({ command: 'SELECT', rowCount: 3, rows: [{ n: 7 }, { n: 7 }, { n: 7 }] });
    expect(full.fields[0]).toMatchObject({ name: 'n', dataTypeID: 23 });
    expect(await sql().query('SELECT $1::text AS a', [null], { arrayMode: true })).toEqual([[null]]);
  });

  it('runs a batch as one transaction: a failing statement rolls back the others', async () => {
    const q = sql();
    await q`CREATE TABLE http_tx (id int PRIMARY KEY, email text UNIQUE)`;
    const [inserted, counted] = await q.transaction([
      q`INSERT INTO http_tx VALUES (1, 'a@example.com') RETURNING id`,
      q`SELECT count(*)::int AS n FROM http_tx`,
    ]);
    expect(inserted).toEqual([{ id: 1 }]);
    expect(counted).toEqual([{ n: 1 }]);

    await expect(
      q.transaction([
        q`INSERT INTO http_tx VALUES (2, 'b@example.com')`,
        q`INSERT INTO http_tx VALUES (3, 'a@example.com')`,
      ]),
    ).rejects.toMatchObject({ code: '23505', constraint: 'http_tx_email_key' });
    expect(await q`SELECT id FROM http_tx ORDER BY id`).toEqual([{ id: 1 }]);
  });

  it('applies the batch options', async () => {
    const q = sql();
    const results = await q.transaction([q`SHOW transaction_isolation`, q`SHOW transaction_read_only`], {
      isolationLevel: 'Serializable',
      readOnly: true,
    });
    expect(results).toEqual([[{ transaction_isolation: 'serializable' }], [{ transaction_read_only: 'on' }]]);
  });

  it('surfaces Postgres errors with their SQLSTATE and fields', async () => {
    const q = sql();
    await q`CREATE TABLE http_unique (email text CONSTRAINT http_unique_email UNIQUE)`;
    await q`INSERT INTO http_unique VALUES ('x@example.com')`;
    const error = await q`INSERT INTO http_unique VALUES ('x@example.com')`.catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'NeonDbError',
      code: '23505',
      constraint: 'http_unique_email',
      table: 'http_unique',
      detail: 'Key (email)=(x@example.com) already exists.',
    });
    await expect(q`SELECT nope FROM http_unique`).rejects.toMatchObject({ code: '42703' });
    // One statement per query, as on Neon.
    await expect(q`SELECT 1; SELECT 2`).rejects.toMatchObject({ code: '42601' });
  });

  it('serves Pool.query when poolQueryViaFetch is on', async () => {
    neonConfig.poolQueryViaFetch = true;
    const pool = new Pool({ connectionString: stack.databaseUrl });
    try {
      const result = await pool.query('SELECT $1::int * 2 AS n', [21]);
      expect(result).toMatchObject({ rows: [{ n: 42 }], viaNeonFetch: true });
    } finally {
      neonConfig.poolQueryViaFetch = false;
      await pool.end();
    }
  });
});

describe('drizzle neon-http over the endpoint', () => {
  it('batches atomically and reads typed rows', async () => {
    const things = pgTable('drizzle_things', {
      id: serial('id').primaryKey(),
      name: text('name').notNull().unique(),
      meta: jsonb('meta'),
      at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    });
    const db = drizzle({ client: neon(stack.databaseUrl) });
    await db.execute(
      dsql`CREATE TABLE drizzle_things (id serial PRIMARY KEY, name text NOT NULL UNIQUE, meta jsonb, at timestamptz NOT NULL DEFAULT now())`,
    );
    const [inserted] = await db.batch([
      db
        .insert(things)
        .values({ name: 'a', meta: { x: 1 } })
        .returning(),
      db.select().from(things),
    ]);
    expect(inserted).toEqual([{ id: 1, name: 'a', meta: { x: 1 }, at: expect.any(Date) }]);
    await expect(
      db.batch([db.insert(things).values({ name: 'b' }), db.insert(things).values({ name: 'a' })]),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await db.select({ name: things.name }).from(things)).toEqual([{ name: 'a' }]);
  });
});

describe('stop()', () => {
  it('stops the server and every listener', async () => {
    const pgPort = Number(new URL(stack.databaseUrl).port);
    await stack.stop();
    const connect = (port: number) =>
      new Promise((resolve, reject) => net.connect(port, '127.0.0.1').on('connect', resolve).on('error', reject));
    if (!process.env.DATABASE_URL) await expect(connect(pgPort)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await expect(connect(stack.wsProxyPort)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await expect(connect(Number(new URL(stack.sqlHttpUrl).port))).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    // a query, not only the connection: a pooler (PgBouncer) accepts a client before it reaches the
    // database, and keeps it waiting while it retries the server (hence the time-out)
    const client = new pg.Client({
      connectionString: stack.databaseUrl,
      connectionTimeoutMillis: 5_000,
      query_timeout: 5_000,
    });
    client.on('error', () => {});
    await expect(client.connect().then(() => client.query('SELECT 1'))).rejects.toThrow();
    await client.end().catch(() => {});
    const dataDir = new URL('../../.data/', import.meta.url);
    const leftovers = existsSync(dataDir)
      ? readdirSync(dataDir).filter((d) => d.startsWith(`postgres-test-${process.pid}-`))
      : [];
    expect(leftovers).toEqual([]);
  });
});
