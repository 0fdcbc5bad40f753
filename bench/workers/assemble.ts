// The list-assembly benchmark's Worker (bench/assemble.ts): the work of one list page in workerd
// without the network, over the database's captured answer to the benchmark's list statement.
//
//   GET /?case=<name>&n=<count>   runs the case `count` times in a row, then answers 204
//
//   driver   the Neon driver's query, its fetch answered with the captured body (what the bare SQL
//            Worker and the service both do with the answer: parse it, type the columns)
//   bare     driver, then the rows as the bare SQL Worker answers them (`JSON.stringify({rows})`)
//   query    the list's query string validated, as the route does (no driver)
//   page     the query, then the driver through the service's own `listBody` (the statement
//            cache, the wire records, `included`, the paging)
//   service  page, then its body as `c.json` serializes it
import { neon, neonConfig } from '@neondatabase/serverless';
import { Hono } from 'hono';
import { listBody, schemasOf } from '../../src/engine';
import { companiesResource } from '../../src/resources/companies/companies.resource';

interface Env {
  /** the HTTP body the SQL-over-HTTP stand-in answered to the list statement */
  BENCH_ANSWER: string;
  /** JSON: the caller (a Principal) and the list's query string */
  BENCH_LIST: string;
}

const AS_DRIZZLE_DOES = { arrayMode: false, fullResults: true } as const;
let answer = '';
neonConfig.fetchFunction = async () => new Response(answer, { headers: { 'content-type': 'application/json' } });
const query = neon('postgres://bench:bench@captured.invalid/bench');
const db = { execute: () => Promise.reject(new Error('only executeText')), executeText: (text: string, params: unknown[]) => query.query(text, params, AS_DRIZZLE_DOES) };

interface List {
  who: never;
  query: string;
}
type Case = (list: List) => Promise<unknown>;

/** The list's query string validated, as the route does. */
const listQueryOf = (query: string) => schemasOf(companiesResource).listQuery.parse(Object.fromEntries(new URLSearchParams(query)));

/** As a request does: its query string validated, its page read and made into the wire body. */
function page({ who, query }: List) {
  const context = { var: { db: { http: db }, principal: who } };
  return listBody(context as never, companiesResource, who, listQueryOf(query) as never);
}

const cases: Record<string, Case> = {
  driver: () => db.executeText('SELECT 1', []),
  bare: async () => JSON.stringify({ rows: (await db.executeText('SELECT 1', [])).rows }),
  query: async ({ query: listQuery }) => listQueryOf(listQuery),
  page: async (list) => page(list),
  service: async (list) => JSON.stringify(await page(list)),
};

const app = new Hono<{ Bindings: Env }>();
app.get('/', async (c) => {
  answer = c.env.BENCH_ANSWER;
  const run = cases[c.req.query('case') ?? ''];
  if (!run) return c.json({ errors: [{ code: 'not_found', detail: `cases: ${Object.keys(cases).join(', ')}` }] }, 404);
  const times = Number(c.req.query('n') ?? 1);
  const list = JSON.parse(c.env.BENCH_LIST) as List;
  let last: unknown;
  for (let i = 0; i < times; i++) last = await run(list);
  return c.body(null, typeof last === 'string' || last ? 204 : 500);
});

export default app;
