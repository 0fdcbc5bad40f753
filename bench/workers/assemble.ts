// The list-assembly benchmark's Worker (bench/assemble.ts): the work of one list page in workerd
// without the network, over the database's captured answers (the benchmark's list statement, and
// the credential look-up of its key).
//
//   GET /?case=<name>&n=<count>   runs the case `count` times in a row, then answers 204
//
//   driver       the Neon driver's query, its fetch answered with the captured body (what the bare
//                SQL Worker and the service both do with the answer: parse it, type the columns)
//   bare         driver, then the rows as the bare SQL Worker answers them (`JSON.stringify({rows})`)
//   query        the list's query string validated, as the route does (no driver)
//   page         the query, then the driver through the service's own `listBody` (the statement
//                cache, the wire records, `included`, the paging)
//   service      page, then its body as `c.json` serializes it
//   bareRequest  `GET /http/v2/companies.json` through the bare SQL Worker's own app, body read
//   request      `GET /v2/companies.json?<query>` through the service's whole app (routing, the
//                request's context and log line, the key from the isolate's cache, the route's
//                checks, the page, its headers), body read; the rate limiter off (its cost is
//                `npm run bench:ratelimit`'s)
import { neon, neonConfig } from '@neondatabase/serverless';
import { Hono } from 'hono';
import { createApp } from '../../src/app';
import { listBody, schemasOf } from '../../src/engine';
import { modules } from '../../src/module-list';
import { companiesResource } from '../../src/resources/companies/companies.resource';
import bareSql from './bare-sql';

interface Env {
  /** the HTTP bodies the SQL-over-HTTP stand-in answered, by statement text: JSON {text: body} */
  BENCH_ANSWERS: string;
  /** JSON: the caller (a Principal), its API key, the list's query string, the bare SQL Worker's statements */
  BENCH_LIST: string;
}
interface List {
  who: never;
  key: string;
  query: string;
  statements: { list: { text: string; params: unknown[] } };
  /** each Worker's environment, made once a request (as the runtime hands one over) */
  bareEnv?: object;
  serviceEnv?: object;
}

const DATABASE_URL = 'postgres://bench:bench@captured.invalid/bench';
const AS_DRIZZLE_DOES = { arrayMode: false, fullResults: true } as const;
let answers: Record<string, string> = {};
// Every query the driver sends is answered from memory, by its text; another statement is an error.
neonConfig.fetchFunction = async (_url: string, init: RequestInit) => {
  const { query: text } = JSON.parse(String(init.body)) as { query: string };
  const answer = answers[text];
  if (answer === undefined) throw new Error(`no captured answer for: ${text.slice(0, 200)}`);
  return new Response(answer, { headers: { 'content-type': 'application/json' } });
};
const query = neon(DATABASE_URL);
const db = {
  execute: () => Promise.reject(new Error('only executeText')),
  executeText: (text: string, params: unknown[]) => query.query(text, params, AS_DRIZZLE_DOES),
};
/** The list statement's text: what `driver` and `bare` send. */
let listText = '';
const service = createApp(modules);

type Case = (list: List, ctx: ExecutionContext) => Promise<unknown>;

/** The list's query string validated, as the route does. */
const listQueryOf = (query: string) =>
  schemasOf(companiesResource).listQuery.parse(Object.fromEntries(new URLSearchParams(query)));

/** As a request does: its query string validated, its page read and made into the wire body. */
function page({ who, query }: List) {
  const context = { var: { db: { http: db }, principal: who } };
  return listBody(context as never, companiesResource, who, listQueryOf(query) as never);
}

/** A request through an app, answered in full (its body read as the runtime would send it). */
async function through(
  app: { fetch(request: Request, env: never, ctx: never): Response | Promise<Response> },
  url: string,
  env: object,
  ctx: ExecutionContext,
  headers: Record<string, string> = {},
) {
  const response = await app.fetch(new Request(url, { headers }), env as never, ctx as never);
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.arrayBuffer();
}

const cases: Record<string, Case> = {
  driver: () => db.executeText(listText, []),
  bare: async () => JSON.stringify({ rows: (await db.executeText(listText, [])).rows }),
  query: async ({ query: listQuery }) => listQueryOf(listQuery),
  page: async (list) => page(list),
  service: async (list) => JSON.stringify(await page(list)),
  bareRequest: (list, ctx) => through(bareSql, 'http://bench/http/v2/companies.json', list.bareEnv!, ctx),
  request: (list, ctx) =>
    through(service, `http://bench/v2/companies.json?${list.query}`, list.serviceEnv!, ctx, {
      authorization: `Bearer ${list.key}`,
    }),
};

const app = new Hono<{ Bindings: Env }>();
app.get('/', async (c) => {
  answers = JSON.parse(c.env.BENCH_ANSWERS) as typeof answers;
  const run = cases[c.req.query('case') ?? ''];
  if (!run) return c.json({ errors: [{ code: 'not_found', detail: `cases: ${Object.keys(cases).join(', ')}` }] }, 404);
  const times = Number(c.req.query('n') ?? 1);
  const list = JSON.parse(c.env.BENCH_LIST) as List;
  listText = list.statements.list.text;
  list.bareEnv = { DATABASE_URL, BENCH_STATEMENTS: JSON.stringify(list.statements) };
  list.serviceEnv = { DATABASE_URL, ENVIRONMENT: 'development', RATE_LIMITS: 'off' };
  let last: unknown;
  for (let i = 0; i < times; i++) last = await run(list, c.executionCtx as unknown as ExecutionContext);
  return c.body(null, last ? 204 : 500);
});

export default app;
