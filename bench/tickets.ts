// `npm run bench:tickets`: issue 13's speed targets, in one run, on 127.0.0.1 only.
//
//   1. a throwaway local stack seeded with BENCH_TICKETS tickets (default 1,000,000) and
//      BENCH_ENTRIES_PER_TICKET entries each (default 5), in one installation (bench/tickets-seed.ts);
//   2. the bare SQL Worker and the service in workerd through Miniflare;
//   3. each of these against its bare-driver twin (the very statement the service runs, rendered
//      by the service's own code), in alternating rounds: a filtered list (status and inbox,
//      pageSize 50), one ticket with includes=all, a one-word search; and a reply (the service
//      alone: its twin is a transaction of several statements, not rendered yet);
//   4. the table, the target checks, the raw results in bench/results/.
//
// Settings: BENCH_TICKETS BENCH_ENTRIES_PER_TICKET BENCH_DURATION=10 BENCH_WARMUP=2
// BENCH_CONNECTIONS=10 BENCH_ROUNDS=2
import { ticketsResource } from '../src/resources/tickets/tickets.resource';
import { searchSelection } from '../src/resources/tickets/search';
import { searchCriteria } from '../src/resources/tickets/search-query';
import { listBody, schemasOf, selectOne, selectPage } from '../src/engine';
import { startLocalStack } from '../scripts/stack';
import { quietWranglerEnv } from '../scripts/worker-vars';
import { load, type LoadResult } from './load';
import { fixed, machine, pooled, writeResults } from './report';
import { recorder } from './statements';
import { seedTickets } from './tickets-seed';
import { startBareSql, startService } from './workers';
import { log, runBench, stops } from './lifecycle';

const setting = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number`);
  return value;
};
const config = {
  tickets: setting('BENCH_TICKETS', 1_000_000),
  entriesPerTicket: setting('BENCH_ENTRIES_PER_TICKET', 5),
  durationSeconds: setting('BENCH_DURATION', 10),
  warmupSeconds: setting('BENCH_WARMUP', 2),
  connections: setting('BENCH_CONNECTIONS', 10),
  rounds: Math.max(1, Math.round(setting('BENCH_ROUNDS', 2))),
};
Object.assign(process.env, quietWranglerEnv);

async function one(run: (db: ReturnType<typeof recorder>['db']) => Promise<unknown>) {
  const { db, statements } = recorder();
  await run(db);
  if (statements.length !== 1) throw new Error(`ran ${statements.length} statements, not 1`);
  return statements[0]!;
}

async function main(): Promise<void> {
  const host = machine();
  log(`machine: ${host.nproc} CPUs, ${host.memoryGiB} GiB, node ${host.node}`);
  const stack = await startLocalStack({ purpose: 'test' });
  stops.push(stack.stop);
  const seedStart = Date.now();
  log(`seeding ${config.tickets} tickets with ${config.entriesPerTicket} entries each ...`);
  const data = await seedTickets(stack.databaseUrl, config.tickets, config.entriesPerTicket, log);
  log(`seeded in ${((Date.now() - seedStart) / 1000).toFixed(0)} s: ${JSON.stringify(data.rows)}`);

  const who = { kind: 'teammate', installationId: data.installationId, userId: data.ownerUserId, role: 'owner' } as const;
  const inbox = data.inboxIds[3]!;
  const listQuery = `filter=${encodeURIComponent(JSON.stringify({ status: 3, inbox }))}&pageSize=50`;
  // a term of the entries' vocabulary: in about 1 ticket of 500 (docs/benchmarks.md)
  const searchQuery = 'search=term1234&pageSize=50';
  const includesAll = Object.keys(ticketsResource.relations);
  const named = {
    list: await one((db) => {
      const parsed = schemasOf(ticketsResource).listQuery.parse(Object.fromEntries(new URLSearchParams(listQuery)));
      return listBody({ var: { db: { http: db }, principal: who } } as never, ticketsResource, who, parsed as never);
    }),
    get: await one((db) => selectOne(db as never, ticketsResource, data.ticketId, { who, includes: includesAll })),
    search: await one((db) => {
      const { where, page } = searchSelection(searchCriteria(Object.fromEntries(new URLSearchParams(searchQuery))), who);
      return selectPage(db as never, ticketsResource, { who, where, withDeleted: false, includes: [] }, page);
    }),
  };
  const placeholder = { text: 'SELECT 1', params: [] };
  const bare = await startBareSql(stack, { get: { ...placeholder, idParam: 0 }, auth: placeholder, list: placeholder, named });
  stops.push(bare.stop);
  const service = await startService(stack);
  stops.push(service.stop);
  const auth = { authorization: `Bearer ${data.ownerKey}` };

  const pairs = [
    { key: 'list', label: 'filtered list (status, inbox), pageSize 50', path: `/v2/tickets.json?${listQuery}`, ratio: 1.3, p99: 50 },
    { key: 'get', label: 'one ticket, includes=all', path: `/v2/tickets/${data.ticketId}.json?includes=all`, ratio: 1.3 },
    { key: 'search', label: 'search for one word', path: `/v2/search/tickets.json?${searchQuery}`, ratio: 1.3, p99: 200 },
  ];
  const rounds: Record<string, LoadResult[]> = {};
  const run = async (name: string, url: string, path: string, headers: Record<string, string>, postBody?: string) => {
    const result = await load({ url, paths: [path], headers, connections: config.connections, warmupSeconds: config.warmupSeconds, durationSeconds: config.durationSeconds, keepLatencies: true, postBody });
    (rounds[name] ??= []).push(result);
    log(`  ${name}: ${result.rps.toFixed(0)} req/s, p50 ${fixed(result.p50)} ms, p99 ${fixed(result.p99)} ms, non-2xx ${result.non2xx}, errors ${result.errors + result.timeouts}`);
  };
  for (let round = 1; round <= config.rounds; round++) {
    for (const pair of pairs) {
      const order = round % 2 ? ['service', 'bare'] : ['bare', 'service'];
      for (const side of order) {
        if (side === 'service') await run(`service ${pair.key}`, service.url, pair.path, auth);
        else await run(`bare ${pair.key}`, bare.url, `/named/${pair.key}`, {});
      }
    }
  }
  await run('service reply', service.url, `/v2/tickets/${data.ticketId}/messages.json`, { ...auth, 'content-type': 'application/json' }, JSON.stringify({ message: 'Reply {n} from the benchmark', threadType: 'note' }));

  log('');
  const results: Record<string, LoadResult> = Object.fromEntries(Object.entries(rounds).map(([name, list]) => [name, pooled(list)]));
  const checks: { name: string; pass: boolean; detail: string }[] = [];
  for (const pair of pairs) {
    const s = results[`service ${pair.key}`]!;
    const b = results[`bare ${pair.key}`]!;
    const ratio = s.p50 / b.p50;
    log(`${pair.label}: service p50 ${fixed(s.p50)} ms p99 ${fixed(s.p99)} ms | bare p50 ${fixed(b.p50)} ms p99 ${fixed(b.p99)} ms | ratio ${fixed(ratio, 2)}`);
    checks.push({ name: `${pair.key} p50 <= ${pair.ratio} x bare`, pass: ratio <= pair.ratio, detail: fixed(ratio, 2) });
    if (pair.p99) checks.push({ name: `${pair.key} p99 < ${pair.p99} ms`, pass: s.p99 < pair.p99, detail: `${fixed(s.p99)} ms` });
  }
  const reply = results['service reply']!;
  log(`reply (a note, service only): p50 ${fixed(reply.p50)} ms p99 ${fixed(reply.p99)} ms, ${reply.rps.toFixed(0)} req/s`);
  log('');
  for (const check of checks) log(`  ${check.pass ? 'PASS' : 'MISS'}  ${check.name}: ${check.detail}`);
  const file = await writeResults({
    machine: host, config, seeded: data.rows, named,
    results: Object.fromEntries(Object.entries(results).map(([k, r]) => [k, { ...r, latencies: undefined }])),
    checks,
  }, 'tickets');
  log(`\nraw results: ${file}`);
}

await runBench(main);
