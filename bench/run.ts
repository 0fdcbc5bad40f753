// `npm run bench`: the benchmark of issue 2, in one run, on 127.0.0.1 only.
//
//   1. a throwaway local stack, seeded with one installation and BENCH_COMPANIES companies;
//   2. three Workers in workerd through Miniflare: the ceiling (bare Hono, static JSON), the bare
//      SQL Worker (the service's GET statement over HTTP, over a per-request Pool, and two more
//      shapes for docs/connection-strategy.md; the service's list statement over HTTP), and the
//      service;
//   3. the same load on each: autocannon, BENCH_CONNECTIONS connections, BENCH_WARMUP s of
//      warm-up, then BENCH_DURATION s measured; the table and the target checks;
//   4. database round trips per API request, from the stand-ins' counters;
//   5. the raw results in bench/results/, and everything it started stopped.
//
// Settings (environment): BENCH_DURATION=10 BENCH_WARMUP=2 BENCH_CONNECTIONS=20
// BENCH_COMPANIES=10000 BENCH_ROUND_TRIPS=50 (sequential requests per round-trip count; 0 skips
// them) BENCH_LIST_ROUNDS=3 (rounds of the service list and the bare SQL list, alternating, pooled)
// BENCH_ONLY (a comma list of target keys to load, e.g. serviceList,bareList; all unset)
// BENCH_SETTLE=5 (seconds of unmeasured load on each chosen target before the first is measured).
import { addApiKey } from '../scripts/seed';
import { startLocalStack, type LocalStack } from '../scripts/stack';
import { quietWranglerEnv } from '../scripts/worker-vars';
import { load, type LoadResult } from './load';
import {
  checks,
  cpuTable,
  fixed,
  listChecks,
  disturbed,
  machine,
  pooled,
  roundTripTable,
  table,
  withClient,
  writeResults,
  type Measured,
} from './report';
import { countRoundTrips, type RoundTrips } from './round-trips';
import { seed } from './seed';
import { companyGetStatement, companyListStatement, credentialLookUpStatement } from './statements';
import { startBareSql, startCeiling, startService, serviceRuntime, type RunningWorker } from './workers';
import { hashSecret } from '../src/auth/secrets';
import { log, runBench, setting, started, stops } from './lifecycle';

const config = {
  durationSeconds: setting('BENCH_DURATION', 10),
  warmupSeconds: setting('BENCH_WARMUP', 2),
  connections: setting('BENCH_CONNECTIONS', 20),
  companies: setting('BENCH_COMPANIES', 10_000),
  roundTripRequests: setting('BENCH_ROUND_TRIPS', 50),
  listRounds: Math.max(1, Math.round(setting('BENCH_LIST_ROUNDS', 3))),
  settleSeconds: setting('BENCH_SETTLE', 5),
};
Object.assign(process.env, quietWranglerEnv);

/** The list page every list request of the load asks for. */
const LIST_QUERY = 'pageSize=50&includes=all';

async function main(): Promise<void> {
  const host = machine();
  log(
    `machine: ${host.nproc} CPUs (${host.cpu}), ${host.memoryGiB} GiB, node ${host.node}, ${host.workerd}, load average ${host.loadAverageAtStart.join(' ')}`,
  );
  log(
    `settings: ${config.connections} connections, ${config.warmupSeconds} s warm-up + ${config.durationSeconds} s per target, ${config.companies} companies`,
  );

  const stack: LocalStack = await startLocalStack({ purpose: 'test' });
  stops.push(stack.stop);
  const seedStart = Date.now();
  const data = await seed(stack.databaseUrl, config.companies);
  log(
    `seeded installation ${data.installationId} in ${((Date.now() - seedStart) / 1000).toFixed(1)} s: ${Object.entries(
      data.rows,
    )
      .map(([t, n]) => `${t} ${n}`)
      .join(', ')}`,
  );

  const owner = {
    kind: 'teammate',
    installationId: data.installationId,
    userId: data.ownerUserId,
    role: 'owner',
  } as const;
  const statements = {
    get: await companyGetStatement(owner),
    auth: credentialLookUpStatement(await hashSecret(data.ownerKey)),
    list: await companyListStatement(owner, LIST_QUERY),
  };
  const runtime = serviceRuntime();
  log(`bundling and starting 3 Workers (compatibility date ${runtime.date}) ...`);
  const start = async (worker: Promise<RunningWorker>) => {
    const running = await worker;
    stops.push(running.stop);
    return running;
  };
  const ceiling = await start(startCeiling());
  const bare = await start(startBareSql(stack, statements));
  const service = await start(startService(stack));

  const auth = { authorization: `Bearer ${data.ownerKey}` };
  const byId = (prefix: string) => data.companyIds.map((id) => `${prefix}/v2/companies/${id}.json`);
  const listPath = (pageSize: number) => `/v2/companies.json?pageSize=${pageSize}&includes=all`;
  if (listPath(50) !== `/v2/companies.json?${LIST_QUERY}`)
    throw new Error('the bare list statement is not the page the service is asked for');
  const targets: Array<{ key: string; label: string; url: string; paths: string[]; headers?: Record<string, string> }> =
    [
      // The targets the checks compare run back to back, so that drift on a shared machine hits them alike.
      { key: 'ceiling', label: 'ceiling: bare Hono, static JSON', url: ceiling.url, paths: byId('') },
      { key: 'bareHttp', label: 'bare SQL GET, HTTP (neon() query)', url: bare.url, paths: byId('/http') },
      {
        key: 'serviceGet',
        label: 'service GET /v2/companies/{id}.json',
        url: service.url,
        paths: byId(''),
        headers: auth,
      },
      {
        key: 'serviceList',
        label: 'service list pageSize=50 includes=all',
        url: service.url,
        paths: [listPath(50)],
        headers: auth,
      },
      {
        key: 'bareList',
        label: 'bare SQL list (the same statement), HTTP',
        url: bare.url,
        paths: [`/http${listPath(50)}`],
      },
      { key: 'barePool', label: 'bare SQL GET, Pool per request', url: bare.url, paths: byId('/pool') },
      { key: 'bareHttpX2', label: 'bare SQL auth + GET, 2 HTTP queries', url: bare.url, paths: byId('/http-x2') },
      { key: 'bareBatch', label: 'bare SQL auth + GET, 1 HTTP batch', url: bare.url, paths: byId('/batch') },
    ];

  const only = process.env.BENCH_ONLY?.split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  const unknown = only?.filter((key) => !targets.some((t) => t.key === key));
  if (unknown?.length)
    throw new Error(
      `BENCH_ONLY: unknown targets ${unknown.join(', ')}; known: ${targets.map((t) => t.key).join(', ')}`,
    );
  const measured: Measured[] = [];
  // The list and the bare SQL list run in alternating rounds (service, bare; then bare, service;
  // ...), the first in the targets' order and the others after them, pooled for the table and
  // the checks: their ratio is the list's target, and drift on a shared machine falls on both.
  const listKeys = ['serviceList', 'bareList'];
  const listRounds: Record<string, LoadResult[]> = { serviceList: [], bareList: [] };
  /** The load on a target: `durationSeconds` measured after `warmupSeconds` unmeasured. */
  const loadOn = (target: (typeof targets)[number], warmupSeconds: number, durationSeconds: number) =>
    load({
      url: target.url,
      paths: target.paths,
      headers: target.headers ?? {},
      connections: config.connections,
      warmupSeconds,
      durationSeconds,
      keepLatencies: listKeys.includes(target.key),
    });
  const measure = async (target: (typeof targets)[number], round?: number) => {
    const result = await loadOn(target, config.warmupSeconds, config.durationSeconds);
    if (listKeys.includes(target.key)) listRounds[target.key]!.push(result);
    // a target none of whose answers was a 2xx has no latencies (p50 null): '-'
    log(
      `  ${target.label}${round ? ` (round ${round})` : ''}: ${fixed(result.rps, 0)} req/s, p50 ${fixed(result.p50)} ms, p99 ${fixed(result.p99)} ms, non-2xx ${result.non2xx}, errors ${result.errors + result.timeouts}`,
    );
    return result;
  };
  const chosen = targets.filter((t) => !only || only.includes(t.key));
  // Every chosen target loaded once, unmeasured, before any is measured: in 10 list runs of 13, the
  // bench's own process spent more a request while the first target after the seed was measured
  // than in any later round (up to 1.3 against 0.7 to 0.9 ms), which fell on that target alone.
  if (config.settleSeconds > 0) {
    log(`settling: each target loaded ${config.settleSeconds} s, not measured`);
    for (const target of chosen) {
      const settled = await loadOn(target, 0, config.settleSeconds);
      if (settled.non2xx || settled.errors)
        log(
          `  ${target.label}: ${settled.non2xx} non-2xx, ${settled.errors} errors while settling ${JSON.stringify(settled.statusCodes)}`,
        );
    }
  }
  for (const target of chosen)
    measured.push({
      key: target.key,
      label: target.label,
      result: await measure(target, listKeys.includes(target.key) ? 1 : undefined),
    });
  const lists = chosen.filter((t) => listKeys.includes(t.key));
  for (let round = 2; lists.length && round <= config.listRounds; round++) {
    for (const target of round % 2 === 0 ? [...lists].reverse() : lists) await measure(target, round);
  }
  const listRatios = listRounds.serviceList!.map((r, i) => r.p50 / (listRounds.bareList![i]?.p50 ?? NaN));
  for (const m of measured) {
    if (!listKeys.includes(m.key) || listRounds[m.key]!.length < 2) continue;
    m.result = pooled(listRounds[m.key]!);
    m.label = `${m.label} (${listRounds[m.key]!.length} rounds)`;
  }
  if (lists.length === 2)
    log(`  list p50 ratio service / bare SQL by round: ${listRatios.map((r) => r.toFixed(2)).join(', ')}`);
  const has = (key: string) => measured.some((m) => m.key === key);
  const get = (key: string): LoadResult => measured.find((m) => m.key === key)!.result;

  log('');
  log(table(measured, has('ceiling') ? get('ceiling').rps : NaN));
  log('');
  log(`CPU cores used while measuring, by process (${host.nproc} on this machine; stand-ins = this node process):`);
  log(cpuTable(measured));
  for (const warning of disturbed(measured))
    log(`  DISTURBED  ${warning}: its figures are low; run again on a quiet machine`);
  log('');
  log('target checks:');
  const targetChecks = [
    ...(['ceiling', 'bareHttp', 'serviceGet', 'serviceList'].every(has)
      ? checks(get('ceiling'), get('bareHttp'), get('serviceGet'), get('serviceList'))
      : []),
    ...(['bareList', 'serviceList'].every(has) ? listChecks(get('bareList'), get('serviceList')) : []),
  ];
  for (const check of targetChecks) log(`  ${check.pass ? 'PASS' : 'MISS'}  ${check.name}: ${check.detail}`);
  const failedRequests = measured.filter((m) => m.result.non2xx > 0 || m.result.errors > 0 || m.result.timeouts > 0);
  for (const m of failedRequests)
    log(
      `  FAIL  ${m.label}: ${m.result.non2xx} non-2xx, ${m.result.errors} errors, ${m.result.timeouts} timeouts ${JSON.stringify(m.result.statusCodes)}`,
    );

  // Round trips. One request first puts the owner key in the isolate's credential cache (it holds
  // a key 30 s, and the load on the service ended longer ago); a key never seen shows a miss.
  const n = config.roundTripRequests;
  const counts: RoundTrips[] = [];
  if (n > 0) {
    await (await fetch(`${service.url}/v2/companies/${data.companyIds[0]}.json`, { headers: auth })).arrayBuffer();
    const ids = (count: number) =>
      Array.from({ length: count }, (_, i) => data.companyIds[(i * 197) % data.companyIds.length]!);
    counts.push(
      await countRoundTrips(
        stack,
        'service GET by id',
        ids(n).map((id) => `${service.url}/v2/companies/${id}.json`),
        auth,
      ),
    );
    for (const pageSize of [10, 50, 100]) {
      const pages = Array.from(
        { length: n },
        (_, i) => `${service.url}${listPath(pageSize)}&page=${1 + (i % Math.floor(data.companyIds.length / pageSize))}`,
      );
      counts.push(await countRoundTrips(stack, `service list includes=all pageSize=${pageSize}`, pages, auth));
    }
    const freshKey = await withClient(stack.databaseUrl, (client) =>
      addApiKey(client, data.installationId, data.ownerUserId),
    );
    const fresh = { authorization: `Bearer ${freshKey}` };
    counts.push(
      await countRoundTrips(
        stack,
        'service GET, first request of a new key',
        [`${service.url}/v2/companies/${data.companyIds[0]}.json`],
        fresh,
      ),
    );
    counts.push(
      await countRoundTrips(
        stack,
        'service GET, same key again',
        ids(n).map((id) => `${service.url}/v2/companies/${id}.json`),
        fresh,
      ),
    );
    // A create with relations: the interactive write transaction, on its one WebSocket connection.
    const creates = Array.from(
      { length: n },
      (_, i) =>
        new Request(`${service.url}/v2/companies.json`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            company: {
              name: `Bench create ${started}-${i}`,
              domains: [{ name: `create${i}.example.com` }],
              phones: [{ number: '+1 555 0100' }],
            },
          }),
        }),
    );
    counts.push(await countRoundTrips(stack, 'service POST create (+2 relations)', creates, auth));
    for (const [prefix, label] of [
      ['/http', 'bare HTTP'],
      ['/pool', 'bare Pool per request'],
      ['/http-x2', 'bare auth + GET, 2 HTTP'],
      ['/batch', 'bare auth + GET, 1 batch'],
    ] as const) {
      counts.push(
        await countRoundTrips(
          stack,
          label,
          ids(n).map((id) => `${bare.url}${prefix}/v2/companies/${id}.json`),
        ),
      );
    }
    log('');
    log('database round trips per API request (HTTP requests + WebSocket connections at the stand-ins):');
    log(roundTripTable(counts));
    const lists = counts.filter((c) => c.label.startsWith('service list'));
    const constant = lists.every((c) => c.perRequest === lists[0]!.perRequest);
    log(
      `  list round trips ${constant ? 'are constant' : 'VARY'} in the page size: ${lists.map((c) => c.perRequest.toFixed(2)).join(', ')}`,
    );
  }

  const file = await writeResults({
    startedAt: new Date(started).toISOString(),
    machine: host,
    config,
    compatibility: runtime,
    seeded: data.rows,
    statements,
    targets: measured.map((m) => ({ ...m, result: { ...m.result, latencies: undefined } })),
    listRounds: Object.fromEntries(
      Object.entries(listRounds).map(([key, rounds]) => [key, rounds.map((r) => ({ ...r, latencies: undefined }))]),
    ),
    listRatios,
    checks: targetChecks,
    roundTrips: counts,
  });
  log(`\nraw results: ${file}`);
  if (failedRequests.length) process.exitCode = 1;
}

await runBench(main);
