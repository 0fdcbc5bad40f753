import { searchSelection } from '../src/resources/tickets/search-query';
// `npm run bench:tickets`: issue 13's speed targets, in one run, on 127.0.0.1 only.
//
//   1. a throwaway local stack seeded with BENCH_TICKETS tickets (default 1,000,000) and
//      BENCH_ENTRIES_PER_TICKET entries each (default 5), in one installation (bench/tickets-seed.ts);
//   2. the bare SQL Worker and the service in workerd through Miniflare;
//   3. each of these against its bare-driver twin (the very statement the service runs, rendered
//      by the service's own code), in alternating rounds: a filtered list (status and inbox,
//      pageSize 50), one ticket with includes=all, a one-word search; and a reply (a note to one
//      of 2,000 tickets), whose twin sends the statements the service's reply sends now
//      (`plannedTicketEntry`), written by hand (bench/reply-batch.ts), as one batch through the
//      raw driver;
//   4. the table, the target checks, the raw results in bench/results/.
//
//   5. the p99 targets again at BENCH_LATENCY_CONNECTIONS (default 2, one a core of this machine),
//      where a request's latency is its own, not its wait behind nine others;
//   6. each Worker's workerd resident memory, sampled through every run, the service's growth
//      against its bare twin's.
//
// Settings: BENCH_TICKETS BENCH_ENTRIES_PER_TICKET BENCH_DURATION=10 BENCH_WARMUP=2
// BENCH_CONNECTIONS=10 BENCH_LATENCY_CONNECTIONS=2 BENCH_ROUNDS=2
import { ticketsResource } from '../src/resources/tickets/tickets.resource';

import { startLocalStack } from '../scripts/stack';
import { quietWranglerEnv } from '../scripts/worker-vars';
import { listBody, schemasOf, selectOne, selectPage } from '../src/engine';
import { searchCriteria } from '../src/resources/tickets/search-query';
import { log, runBench, setting, stops } from './lifecycle';
import { load, type LoadResult } from './load';
import { sampleResident, withNewWorkerd } from './memory';
import { replyBatch } from './reply-batch';
import { fixed, machine, pooled, writeResults } from './report';
import { recorder } from './statements';
import { seedTickets } from './tickets-seed';
import { startBareSql, startService } from './workers';

const config = {
  tickets: setting('BENCH_TICKETS', 1_000_000),
  entriesPerTicket: setting('BENCH_ENTRIES_PER_TICKET', 5),
  durationSeconds: setting('BENCH_DURATION', 10),
  warmupSeconds: setting('BENCH_WARMUP', 2),
  connections: setting('BENCH_CONNECTIONS', 10),
  latencyConnections: setting('BENCH_LATENCY_CONNECTIONS', 2),
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

  const who = {
    kind: 'teammate',
    installationId: data.installationId,
    userId: data.ownerUserId,
    role: 'owner',
  } as const;
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
      const { where, page } = searchSelection(
        searchCriteria(Object.fromEntries(new URLSearchParams(searchQuery))),
        who,
      );
      return selectPage(db as never, ticketsResource, { who, where, withDeleted: false, includes: [] }, page);
    }),
  };
  const replyBody = { message: 'Reply {n} from the benchmark', threadType: 'note' } as const;
  const batches = { reply: replyBatch(who.installationId, who.userId) };
  log(`the reply's batch: ${batches.reply.length} statements`);
  const placeholder = { text: 'SELECT 1', params: [] };
  const { value: bare, pids: barePids } = await withNewWorkerd(() =>
    startBareSql(stack, { get: { ...placeholder, idParam: 0 }, auth: placeholder, list: placeholder, named, batches }),
  );
  stops.push(bare.stop);
  const { value: service, pids: servicePids } = await withNewWorkerd(() => startService(stack));
  stops.push(service.stop);
  if (servicePids.length === 0 || barePids.length === 0)
    throw new Error('a workerd process of the service or of the bare SQL Worker was not found');
  const memory: { run: string; firstMiB: number; maxMiB: number; lastMiB: number }[] = [];
  const auth = { authorization: `Bearer ${data.ownerKey}` };

  const pairs: {
    key: string;
    label: string;
    paths: string[];
    barePaths: string[];
    body?: string;
    ratio: number;
    p99?: number;
  }[] = [
    {
      key: 'list',
      label: 'filtered list (status, inbox), pageSize 50',
      paths: [`/v2/tickets.json?${listQuery}`],
      barePaths: ['/named/list'],
      ratio: 1.3,
      p99: 50,
    },
    {
      key: 'get',
      label: 'one ticket, includes=all',
      paths: [`/v2/tickets/${data.ticketId}.json?includes=all`],
      barePaths: ['/named/get'],
      ratio: 1.3,
    },
    {
      key: 'search',
      label: 'search for one word',
      paths: [`/v2/search/tickets.json?${searchQuery}`],
      barePaths: ['/named/search'],
      ratio: 1.3,
      p99: 200,
    },
    {
      key: 'reply',
      label: 'a reply (a note) to one of 2,000 tickets',
      ratio: 1.3,
      body: JSON.stringify(replyBody),
      paths: data.replyTicketIds.map((id) => `/v2/tickets/${id}/messages.json`),
      barePaths: data.replyTicketIds.map((id) => `/batch/reply/${id}`),
    },
  ];
  const rounds: Record<string, LoadResult[]> = {};
  const run = async (
    name: string,
    url: string,
    paths: string[],
    headers: Record<string, string>,
    postBody?: string,
    connections = config.connections,
  ) => {
    const sampling = sampleResident(url === service.url ? servicePids : barePids);
    const result = await load({
      url,
      paths,
      headers,
      connections,
      warmupSeconds: config.warmupSeconds,
      durationSeconds: config.durationSeconds,
      keepLatencies: true,
      postBody,
    });
    const samples = sampling.stop();
    memory.push({ run: name, firstMiB: samples[0]!, maxMiB: Math.max(...samples), lastMiB: samples.at(-1)! });
    (rounds[name] ??= []).push(result);
    log(
      `  ${name}: ${result.rps.toFixed(0)} req/s, p50 ${fixed(result.p50)} ms, p99 ${fixed(result.p99)} ms, non-2xx ${result.non2xx}, errors ${result.errors + result.timeouts}`,
    );
  };
  for (let round = 1; round <= config.rounds; round++) {
    for (const pair of pairs) {
      const order = round % 2 ? ['service', 'bare'] : ['bare', 'service'];
      for (const side of order) {
        const json: Record<string, string> = pair.body ? { 'content-type': 'application/json' } : {};
        if (side === 'service')
          await run(`service ${pair.key}`, service.url, pair.paths, { ...auth, ...json }, pair.body);
        else await run(`bare ${pair.key}`, bare.url, pair.barePaths, json, pair.body);
      }
    }
  }
  for (const pair of pairs.filter((p) => p.p99)) {
    await run(
      `service ${pair.key} at ${config.latencyConnections}`,
      service.url,
      pair.paths,
      auth,
      undefined,
      config.latencyConnections,
    );
  }

  log('');
  const results: Record<string, LoadResult> = Object.fromEntries(
    Object.entries(rounds).map(([name, list]) => [name, pooled(list)]),
  );
  const checks: { name: string; pass: boolean; detail: string }[] = [];
  for (const pair of pairs) {
    const s = results[`service ${pair.key}`]!;
    const b = results[`bare ${pair.key}`]!;
    const ratio = s.p50 / b.p50;
    log(
      `${pair.label}: service p50 ${fixed(s.p50)} ms p99 ${fixed(s.p99)} ms | bare p50 ${fixed(b.p50)} ms p99 ${fixed(b.p99)} ms | ratio ${fixed(ratio, 2)}`,
    );
    checks.push({
      name: `${pair.key} p50 <= ${pair.ratio} x bare`,
      pass: ratio <= pair.ratio,
      detail: fixed(ratio, 2),
    });
    if (pair.p99) {
      const calm = results[`service ${pair.key} at ${config.latencyConnections}`]!;
      log(`  at ${config.latencyConnections} connections: service p50 ${fixed(calm.p50)} ms p99 ${fixed(calm.p99)} ms`);
      checks.push({
        name: `${pair.key} p99 < ${pair.p99} ms (${config.latencyConnections} connections)`,
        pass: calm.p99 < pair.p99,
        detail: `${fixed(calm.p99)} ms`,
      });
      checks.push({
        name: `${pair.key} p99 < ${pair.p99} ms (${config.connections} connections)`,
        pass: s.p99 < pair.p99,
        detail: `${fixed(s.p99)} ms, bare ${fixed(b.p99)} ms`,
      });
    }
  }
  // Each workerd's resident memory grows over a run of hundreds of thousands of requests, a bare
  // Hono Worker's as well (docs/benchmarks.md); flat means: the service's grows no more than its
  // bare twin's, from the end of each one's first run (its code and caches in) to the end of its last.
  const growth = (side: string) => {
    const runs = memory.filter((m) => m.run.startsWith(`${side} `) && !m.run.includes(' at ')); // the paired rounds
    const peak = Math.max(...runs.map((m) => m.maxMiB));
    log(
      `${side} workerd resident memory: ${runs[0]!.firstMiB} MiB before its first run, ${runs[0]!.lastMiB} after it, ${runs.at(-1)!.lastMiB} after the last of ${runs.length}, peak ${peak}`,
    );
    return { from: runs[0]!.lastMiB, to: runs.at(-1)!.lastMiB, grew: runs.at(-1)!.lastMiB - runs[0]!.lastMiB, peak };
  };
  const serviceMemory = growth('service');
  const bareMemory = growth('bare');
  checks.push({
    name: "worker memory flat over the run (grows no more than the bare twin's)",
    pass: serviceMemory.grew <= Math.max(bareMemory.grew, 0) * 1.1 + 16,
    detail: `service ${serviceMemory.from} -> ${serviceMemory.to} MiB (${fixed(serviceMemory.grew)}), bare ${bareMemory.from} -> ${bareMemory.to} MiB (${fixed(bareMemory.grew)})`,
  });
  log('');
  for (const check of checks) log(`  ${check.pass ? 'PASS' : 'MISS'}  ${check.name}: ${check.detail}`);
  const file = await writeResults(
    {
      machine: host,
      config,
      seeded: data.rows,
      named,
      batches,
      results: Object.fromEntries(Object.entries(results).map(([k, r]) => [k, { ...r, latencies: undefined }])),
      memory,
      checks,
    },
    'tickets',
  );
  log(`\nraw results: ${file}`);
}

await runBench(main);
