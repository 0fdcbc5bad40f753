// The bare SQL Worker: Hono and the Neon driver, set up as src/db/client.ts does, running the
// very statements the service runs for `GET /v2/companies/{id}.json` and for the benchmark's
// list page (rendered from the service's own query builder by bench/statements.ts and handed
// over in BENCH_STATEMENTS). No auth, no drizzle, no JSON assembly: the baselines the service's
// GET and list are measured against.
//
//   /http/v2/companies/{id}.json     one neon() HTTP query
//   /http/v2/companies.json          the list statement (whatever the query string: the page is
//                                    fixed), answered with the rows as the driver returns them
//   /pool/v2/companies/{id}.json     a WebSocket Pool opened for the request, one query, closed
//   /http-x2/v2/companies/{id}.json  the credential look-up, then the GET: two HTTP queries in turn
//   /batch/v2/companies/{id}.json    the same two statements in one HTTP transaction([...])
//   /named/{name}                    a named statement of BENCH_STATEMENTS.named (fixed parameters)
//   POST /batch/{name}/{id}          the statements of BENCH_STATEMENTS.batches[name] as one
//                                    batch over HTTP (`transaction([...])`, as the service's writes
//                                    are sent now), record {id} in their RECORD_SLOT parameters and
//                                    the JSON body's `message` in MESSAGE_SLOT; answers the rows of
//                                    the last statement but one (the read-back)
import { neon, Pool } from '@neondatabase/serverless';
import { Hono, type Context } from 'hono';
import { applyLocalStackSettings } from '../../src/db/local-stack-settings';
import { MESSAGE_SLOT, RECORD_SLOT } from './slots';

interface Env {
  DATABASE_URL: string;
  NEON_LOCAL_WS_PROXY?: string;
  NEON_LOCAL_SQL_HTTP?: string;
  /** JSON: {get: {text, params, idParam}, auth: {text, params}, list: {text, params}} */
  BENCH_STATEMENTS: string;
}
interface Statements {
  get: { text: string; params: unknown[]; idParam: number };
  auth: { text: string; params: unknown[] };
  list: { text: string; params: unknown[] };
  /** more fixed statements by name, for `/named/{name}` (the tickets benchmark's) */
  named?: Record<string, { text: string; params: unknown[] }>;
  /** statements to send as one batch, by name, for `/batch/{name}/{id}` (bench/reply-batch.ts) */
  batches?: Record<string, { text: string; params: unknown[] }[]>;
}
type C = Context<{ Bindings: Env }>;

let parsed: Statements | undefined;
const all = (c: C) => (parsed ??= JSON.parse(c.env.BENCH_STATEMENTS) as Statements);
/** The request's statements: the GET with the path's id in its place. */
function statements(c: C) {
  const { get, auth } = all(c);
  const id = Number(c.req.param('id')!.slice(0, -'.json'.length));
  const params = [...get.params];
  params[get.idParam] = id;
  return { get: { text: get.text, params }, auth };
}

// How drizzle's neon-http session calls the driver for `db.execute` (rawQueryConfig).
const AS_DRIZZLE_DOES = { arrayMode: false, fullResults: true } as const;

/** The rows as the driver returned them (their shape is the statement's), or 404 when there are none. */
function answer(c: C, rows: Record<string, unknown>[]) {
  return rows.length ? c.json({ rows }) : c.json({ errors: [{ code: 'not_found' }] }, 404);
}

const app = new Hono<{ Bindings: Env }>();
const route = '/v2/companies/:id{[0-9]+\\.json}';

app.get(`/http${route}`, async (c) => {
  applyLocalStackSettings(c.env);
  const { get } = statements(c);
  const result = await neon(c.env.DATABASE_URL).query(get.text, get.params, AS_DRIZZLE_DOES);
  return answer(c, result.rows);
});

// One of the named statements, fixed parameters, answered with its rows (404 for an unknown name).
app.get('/named/:name', async (c) => {
  applyLocalStackSettings(c.env);
  const statement = all(c).named?.[c.req.param('name')];
  if (!statement) return c.json({ errors: [{ code: 'not_found' }] }, 404);
  const result = await neon(c.env.DATABASE_URL).query(statement.text, statement.params, AS_DRIZZLE_DOES);
  return answer(c, result.rows);
});

app.post('/batch/:name/:id{[0-9]+}', async (c) => {
  applyLocalStackSettings(c.env);
  const batch = all(c).batches?.[c.req.param('name')];
  if (!batch) return c.json({ errors: [{ code: 'not_found' }] }, 404);
  const id = Number(c.req.param('id'));
  const { message } = await c.req.json<{ message?: string }>();
  const sql = neon(c.env.DATABASE_URL);
  const queries = batch.map((statement) =>
    sql.query(
      statement.text,
      statement.params.map((value) => (value === RECORD_SLOT ? id : value === MESSAGE_SLOT ? message : value)),
    ),
  );
  const results = await sql.transaction(queries, AS_DRIZZLE_DOES);
  return c.json({ rows: results.at(-2)!.rows }, 201);
});

app.get('/http/v2/companies.json', async (c) => {
  applyLocalStackSettings(c.env);
  const { list } = all(c);
  const result = await neon(c.env.DATABASE_URL).query(list.text, list.params, AS_DRIZZLE_DOES);
  return answer(c, result.rows);
});

app.get(`/pool${route}`, async (c) => {
  applyLocalStackSettings(c.env);
  const { get } = statements(c);
  // As the service's Database.transaction does: a pool of one, for this request only.
  const pool = new Pool({ connectionString: c.env.DATABASE_URL, max: 1 });
  try {
    const result = await pool.query(get.text, get.params);
    return answer(c, result.rows);
  } finally {
    c.executionCtx.waitUntil(pool.end());
  }
});

app.get(`/http-x2${route}`, async (c) => {
  applyLocalStackSettings(c.env);
  const { get, auth } = statements(c);
  const sql = neon(c.env.DATABASE_URL);
  const who = await sql.query(auth.text, auth.params, AS_DRIZZLE_DOES);
  if (who.rows.length !== 1) return c.json({ errors: [{ code: 'unauthorized' }] }, 401);
  const result = await sql.query(get.text, get.params, AS_DRIZZLE_DOES);
  return answer(c, result.rows);
});

app.get(`/batch${route}`, async (c) => {
  applyLocalStackSettings(c.env);
  const { get, auth } = statements(c);
  const sql = neon(c.env.DATABASE_URL);
  // not read-only: the look-up notes when the key was last used (a write), as the service's does
  const [who, result] = await sql.transaction(
    [sql.query(auth.text, auth.params), sql.query(get.text, get.params)],
    AS_DRIZZLE_DOES,
  );
  if (who!.rows.length !== 1) return c.json({ errors: [{ code: 'unauthorized' }] }, 401);
  return answer(c, result!.rows);
});

export default app;
