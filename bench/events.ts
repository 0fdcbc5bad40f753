// `npm run bench:events`: what the transactional outbox costs a create, in one run, on 127.0.0.1 only.
//
//   1. a throwaway local stack, seeded as `npm run bench` seeds it (one installation, its owner
//      key, BENCH_COMPANIES companies with their related records);
//   2. the service bundled once and served twice through Miniflare (bench/workers.ts): events on
//      (the default) and events off (`WRITE_EVENTS=off`, the operator's switch: every write
//      leaves its event inserts out, src/events/record-events.ts);
//   3. a check that the first writes events and the second none;
//   4. `POST /v2/companies.json` under the same load on each, in alternating rounds (on, off,
//      then off, on, ...: drift on a shared machine falls on both alike), each request a new
//      company with a unique name and two domains, as the SDK sends it; first under load
//      (BENCH_CONNECTIONS), then one request at a time (what events add to a create alone);
//   5. per round and pooled: req/s, p50, p99, the ratio on / off, CPU by process (Postgres with
//      the backends that ended meanwhile: a write transaction is one connection); the target
//      check (events add at most 15 % to the create's p50); the raw results in bench/results/.
//
// Settings (environment): BENCH_EVENTS_ROUNDS=4 BENCH_DURATION=8 (s measured per round under
// load) BENCH_EVENTS_ALONE=4 (s measured per round, one connection) BENCH_WARMUP=2
// BENCH_CONNECTIONS=20 BENCH_COMPANIES=10000.
import { quietWranglerEnv } from '../scripts/worker-vars';
import { startLocalStack } from '../scripts/stack';
import { cpuTable, disturbed, fixed, machine, align, pooled, withClient, writeResults, type Measured } from './report';
import { load, type LoadResult } from './load';
import { seed } from './seed';
import { serviceBundle, serviceRuntime, type RunningWorker } from './workers';
import { log, runBench, setting, started, stops } from './lifecycle';

const config = {
  rounds: Math.max(1, Math.round(setting('BENCH_EVENTS_ROUNDS', 4))),
  durationSeconds: setting('BENCH_DURATION', 8),
  warmupSeconds: setting('BENCH_WARMUP', 2),
  connections: setting('BENCH_CONNECTIONS', 20),
  aloneSeconds: setting('BENCH_EVENTS_ALONE', 4),
  companies: setting('BENCH_COMPANIES', 10_000),
};
Object.assign(process.env, quietWranglerEnv);

/** At most this much slower with events than without, at the p50. */
const TARGET_RATIO = 1.15;

type Variant = 'on' | 'off';
const label: Record<Variant, string> = { on: 'events on (default)', off: 'events off (WRITE_EVENTS=off)' };

/** A create as the SDK sends it: a new name, two domains. `{n}` is made unique by the load process. */
const namePrefix = (tag: string) => `Events bench ${tag} `;
function createBody(tag: string): string {
  return JSON.stringify({
    company: {
      name: `${namePrefix(tag)}{n}`,
      domains: [{ name: `e{n}-${tag}.example.com` }, { name: `mail.e{n}-${tag}.example.com` }],
    },
  });
}

async function main(): Promise<void> {
  const host = machine();
  log(
    `machine: ${host.nproc} CPUs (${host.cpu}), ${host.memoryGiB} GiB, node ${host.node}, ${host.workerd}, load average ${host.loadAverageAtStart.join(' ')}`,
  );
  log(
    `settings: ${config.rounds} rounds of each Worker alternating, each ${config.warmupSeconds} s warm-up + ${config.durationSeconds} s measured with ${config.connections} connections, then ${config.aloneSeconds} s with 1; ${config.companies} companies seeded`,
  );

  const stack = await startLocalStack({ purpose: 'test' });
  stops.push(stack.stop);
  const data = await seed(stack.databaseUrl, config.companies);
  log(
    `seeded installation ${data.installationId}: ${Object.entries(data.rows)
      .map(([t, n]) => `${t} ${n}`)
      .join(', ')}`,
  );

  log(`bundling the service once and serving it twice (compatibility date ${serviceRuntime().date}) ...`);
  const bundle = serviceBundle();
  const workers = {} as Record<Variant, RunningWorker>;
  for (const [variant, vars] of [
    ['on', {}],
    ['off', { WRITE_EVENTS: 'off' }],
  ] as const) {
    const worker = await bundle.serve(stack, variant, vars);
    stops.push(worker.stop);
    workers[variant] = worker;
  }
  const auth = { authorization: `Bearer ${data.ownerKey}` };
  const eventRows = () =>
    withClient(stack.databaseUrl, async (client) =>
      Number(
        (
          await client.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE installation_id = $1', [
            data.installationId,
          ])
        ).rows[0]!.n,
      ),
    );
  const companiesNamed = (prefix: string) =>
    withClient(stack.databaseUrl, async (client) =>
      Number(
        (
          await client.query<{ n: string }>(
            'SELECT count(*) AS n FROM companies WHERE installation_id = $1 AND name LIKE $2',
            [data.installationId, `${prefix}%`],
          )
        ).rows[0]!.n,
      ),
    );

  // Each Worker writes what it should: a company with two domains is 3 events with events on, none off.
  const tag = started.toString(36);
  const check: Record<Variant, { status: number; events: number }> = {} as never;
  for (const variant of ['on', 'off'] as const) {
    const before = await eventRows();
    const response = await fetch(`${workers[variant].url}/v2/companies.json`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: createBody(`check-${variant}-${tag}`).replaceAll('{n}', '0'),
    });
    await response.arrayBuffer();
    check[variant] = { status: response.status, events: (await eventRows()) - before };
    log(`check: ${label[variant]}: POST answered ${response.status}, ${check[variant].events} event rows written`);
  }
  if (check.on.status !== 201 || check.off.status !== 201 || check.on.events === 0 || check.off.events !== 0) {
    throw new Error(`the two Workers do not differ as they should: ${JSON.stringify(check)}`);
  }

  type Round = LoadResult & { companiesCreated: number; eventsWritten: number };
  /** One phase: alternating rounds of the two Workers at one number of connections. */
  const phase = async (name: string, connections: number, seconds: number) => {
    log('');
    log(
      `${name}: ${connections} connection${connections === 1 ? '' : 's'}, ${config.rounds} rounds, each ${config.warmupSeconds} s warm-up + ${seconds} s measured`,
    );
    const rounds: Array<Record<Variant, Round>> = [];
    for (let round = 1; round <= config.rounds; round++) {
      const order: Variant[] = round % 2 === 1 ? ['on', 'off'] : ['off', 'on'];
      const results = {} as Record<Variant, Round>;
      for (const variant of order) {
        const before = await eventRows();
        const roundTag = `${variant}-c${connections}-r${round}-${tag}`;
        const result = await load({
          url: workers[variant].url,
          paths: ['/v2/companies.json'],
          headers: auth,
          connections,
          warmupSeconds: config.warmupSeconds,
          durationSeconds: seconds,
          postBody: createBody(roundTag),
          keepLatencies: true,
        });
        // Requests still in flight when the load stopped finish first; then, warm-up included,
        // every company the round created and every event row meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        results[variant] = {
          ...result,
          companiesCreated: await companiesNamed(namePrefix(roundTag)),
          eventsWritten: (await eventRows()) - before,
        };
        log(
          `  round ${round}, ${label[variant]}: ${result.rps.toFixed(0)} req/s, p50 ${fixed(result.p50, 2)} ms, p99 ${fixed(result.p99, 2)} ms, ` +
            `non-2xx ${result.non2xx}, errors ${result.errors + result.timeouts}; ${results[variant].companiesCreated} companies created, ${results[variant].eventsWritten} event rows written (warm-up included)`,
        );
      }
      log(`  round ${round}: p50 ratio on / off ${fixed(results.on.p50 / results.off.p50, 3)}`);
      rounds.push(results);
    }
    const all = { on: pooled(rounds.map((r) => r.on)), off: pooled(rounds.map((r) => r.off)) };
    const rows: Measured[] = [
      ...rounds.flatMap((r, i) =>
        (['on', 'off'] as const).map((v) => ({
          key: `${v}${i + 1}`,
          label: `round ${i + 1}: ${label[v]}`,
          result: r[v],
        })),
      ),
      { key: 'on', label: `all rounds: ${label.on}`, result: all.on },
      { key: 'off', label: `all rounds: ${label.off}`, result: all.off },
    ];
    log('');
    log(
      align(
        [
          `POST /v2/companies.json, ${connections} conn.`,
          'req/s',
          'p50 ms',
          'p99 ms',
          'non-2xx',
          'errors',
          'p50 on / off',
        ],
        [
          ...rounds.flatMap((r, i) =>
            (['on', 'off'] as const).map((v) => [
              `round ${i + 1}: ${label[v]}`,
              fixed(r[v].rps, 0),
              fixed(r[v].p50, 2),
              fixed(r[v].p99, 2),
              String(r[v].non2xx),
              String(r[v].errors + r[v].timeouts),
              v === 'on' ? fixed(r.on.p50 / r.off.p50, 3) : '',
            ]),
          ),
          ...(['on', 'off'] as const).map((v) => [
            `all rounds: ${label[v]}`,
            fixed(all[v].rps, 0),
            fixed(all[v].p50, 2),
            fixed(all[v].p99, 2),
            String(all[v].non2xx),
            String(all[v].errors + all[v].timeouts),
            v === 'on' ? fixed(all.on.p50 / all.off.p50, 3) : '',
          ]),
        ],
      ),
    );
    log('');
    log(
      `CPU cores used while measuring, by process (${host.nproc} on this machine; stand-ins = this node process; Postgres includes its backends that ended meanwhile):`,
    );
    log(cpuTable(rows));
    for (const warning of disturbed(rows)) log(`  DISTURBED  ${warning}`);
    const ratios = rounds.map((r) => r.on.p50 / r.off.p50);
    const ratio = all.on.p50 / all.off.p50;
    log(
      `p50 ratio on / off by round: ${ratios.map((r) => fixed(r, 3)).join(', ')}; all rounds pooled: ${fixed(ratio, 3)}`,
    );
    const total = (v: Variant, pick: (r: Round) => number) => rounds.reduce((n, r) => n + pick(r[v]), 0);
    const written = { on: total('on', (r) => r.eventsWritten), off: total('off', (r) => r.eventsWritten) };
    const created = { on: total('on', (r) => r.companiesCreated), off: total('off', (r) => r.companiesCreated) };
    log(
      `companies created (warm-up included): events on ${created.on}, off ${created.off}; event rows written: on ${written.on} (${fixed(written.on / Math.max(1, created.on), 2)} a company), off ${written.off}`,
    );
    const failed = rows.filter((m) => m.result.non2xx > 0 || m.result.errors > 0 || m.result.timeouts > 0);
    for (const m of failed)
      log(`  FAIL  ${m.label}: ${m.result.non2xx} non-2xx, ${m.result.errors} errors, ${m.result.timeouts} timeouts`);
    const strip = (r: LoadResult) => ({ ...r, latencies: undefined });
    return {
      name,
      connections,
      all,
      ratio,
      failed: failed.length,
      results: {
        connections,
        rounds: rounds.map((r) => ({ on: strip(r.on), off: strip(r.off), ratio: r.on.p50 / r.off.p50 })),
        pooled: { on: all.on, off: all.off, ratio },
        companiesCreated: created,
        eventsWritten: written,
      },
    };
  };

  // Under load (the target), then one request at a time (what events add to a create alone).
  const loaded = await phase('under load', config.connections, config.durationSeconds);
  const alone = await phase('one at a time', 1, config.aloneSeconds);

  log('');
  log('target check (all rounds pooled):');
  const checks = [loaded, alone].map((p) => ({
    name: `${p.name} (${p.connections} connection${p.connections === 1 ? '' : 's'}): events add at most 15 % to the create's p50`,
    pass: p.ratio <= TARGET_RATIO,
    detail: `${fixed(p.all.on.p50, 2)} ms vs ${TARGET_RATIO} x ${fixed(p.all.off.p50, 2)} = ${fixed(TARGET_RATIO * p.all.off.p50, 2)} ms (ratio ${fixed(p.ratio, 3)})`,
  }));
  for (const c of checks) log(`  ${c.pass ? 'PASS' : 'MISS'}  ${c.name}: ${c.detail}`);

  const file = await writeResults(
    {
      startedAt: new Date(started).toISOString(),
      machine: host,
      config,
      check,
      phases: [loaded.results, alone.results],
      checks,
    },
    'events',
  );
  log(`\nraw results: ${file}`);
  if (loaded.failed + alone.failed) process.exitCode = 1;
}

await runBench(main);
