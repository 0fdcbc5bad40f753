// `npm run bench:ratelimit`: what the rate limiter costs a GET, in one run, on 127.0.0.1 only.
//
//   1. a throwaway local stack, seeded with one installation (bench/seed.ts);
//   2. the service bundled once and served twice through Miniflare (bench/workers.ts): the
//      limiter on (the default; the local stack's limit of a million a minute, so the load never
//      meets it: an isolate then asks the installation's Durable Object for 50 requests at a
//      time) and off (`RATE_LIMITS=off`, the operator's switch);
//   3. a check that the first answers with `X-Rate-Limit-*` headers and the second without;
//   4. `GET /v2/me.json` (the cheapest authenticated read: what the limiter adds shows most) on
//      each, in alternating rounds, first under load (BENCH_CONNECTIONS), then one at a time;
//   5. per round and pooled: req/s, p50, p99, the difference on - off at the p50; the target
//      check (the limiter adds at most 1 ms to the p50); the raw results in bench/results/.
//
// Settings (environment): BENCH_RATELIMIT_ROUNDS=4 BENCH_DURATION=8 BENCH_RATELIMIT_ALONE=4
// BENCH_WARMUP=2 BENCH_CONNECTIONS=20.
import { quietWranglerEnv } from '../scripts/worker-vars';
import { startLocalStack } from '../scripts/stack';
import { align, fixed, machine, pooled, writeResults } from './report';
import { load, type LoadResult } from './load';
import { seed } from './seed';
import { serviceBundle, serviceRuntime, type RunningWorker } from './workers';
import { log, runBench, setting, started, stops } from './lifecycle';

const config = {
  rounds: Math.max(1, Math.round(setting('BENCH_RATELIMIT_ROUNDS', 4))),
  durationSeconds: setting('BENCH_DURATION', 8),
  warmupSeconds: setting('BENCH_WARMUP', 2),
  connections: setting('BENCH_CONNECTIONS', 20),
  aloneSeconds: setting('BENCH_RATELIMIT_ALONE', 4),
};
Object.assign(process.env, quietWranglerEnv);

/** The limiter adds at most this to the p50, in milliseconds. */
const TARGET_MS = 1;

type Variant = 'on' | 'off';
const label: Record<Variant, string> = { on: 'limiter on (default)', off: 'limiter off (RATE_LIMITS=off)' };

async function main(): Promise<void> {
  const host = machine();
  log(
    `machine: ${host.nproc} CPUs (${host.cpu}), ${host.memoryGiB} GiB, node ${host.node}, ${host.workerd}, load average ${host.loadAverageAtStart.join(' ')}`,
  );
  log(
    `settings: ${config.rounds} rounds of each Worker alternating, each ${config.warmupSeconds} s warm-up + ${config.durationSeconds} s measured with ${config.connections} connections, then ${config.aloneSeconds} s with 1`,
  );
  const stack = await startLocalStack({ purpose: 'test' });
  stops.push(stack.stop);
  const data = await seed(stack.databaseUrl, 10);
  log(`bundling the service once and serving it twice (compatibility date ${serviceRuntime().date}) ...`);
  const bundle = serviceBundle();
  const workers = {} as Record<Variant, RunningWorker>;
  for (const [variant, vars] of [
    ['on', {}],
    ['off', { RATE_LIMITS: 'off' }],
  ] as const) {
    const worker = await bundle.serve(stack, variant, vars);
    stops.push(worker.stop);
    workers[variant] = worker;
  }
  const auth = { authorization: `Bearer ${data.ownerKey}` };
  const limitHeader: Record<Variant, string | null> = { on: null, off: null };
  for (const variant of ['on', 'off'] as const) {
    const response = await fetch(`${workers[variant].url}/v2/me.json`, { headers: auth });
    await response.arrayBuffer();
    limitHeader[variant] = response.headers.get('x-rate-limit-limit');
    log(
      `check: ${label[variant]}: GET answered ${response.status}, X-Rate-Limit-Limit ${limitHeader[variant] ?? '(none)'}`,
    );
    if (response.status !== 200) throw new Error(`${label[variant]} answered ${response.status}`);
  }
  if (limitHeader.on === null || limitHeader.off !== null)
    throw new Error('the two Workers do not differ as they should');

  const phase = async (name: string, connections: number, seconds: number) => {
    log('');
    log(`${name}: ${connections} connection${connections === 1 ? '' : 's'}, ${config.rounds} rounds`);
    const rounds: Array<Record<Variant, LoadResult>> = [];
    for (let round = 1; round <= config.rounds; round++) {
      const order: Variant[] = round % 2 === 1 ? ['on', 'off'] : ['off', 'on'];
      const results = {} as Record<Variant, LoadResult>;
      for (const variant of order) {
        results[variant] = await load({
          url: workers[variant].url,
          paths: ['/v2/me.json'],
          headers: auth,
          connections,
          warmupSeconds: config.warmupSeconds,
          durationSeconds: seconds,
          keepLatencies: true,
        });
        const r = results[variant];
        log(
          `  round ${round}, ${label[variant]}: ${r.rps.toFixed(0)} req/s, p50 ${fixed(r.p50, 3)} ms, p99 ${fixed(r.p99, 3)} ms, non-2xx ${r.non2xx}, errors ${r.errors + r.timeouts}`,
        );
      }
      rounds.push(results);
    }
    const all = { on: pooled(rounds.map((r) => r.on)), off: pooled(rounds.map((r) => r.off)) };
    log('');
    log(
      align(
        [`GET /v2/me.json, ${connections} conn.`, 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'p50 on - off ms'],
        [
          ...rounds.flatMap((r, i) =>
            (['on', 'off'] as const).map((v) => [
              `round ${i + 1}: ${label[v]}`,
              fixed(r[v].rps, 0),
              fixed(r[v].p50, 3),
              fixed(r[v].p99, 3),
              String(r[v].non2xx),
              v === 'on' ? fixed(r.on.p50 - r.off.p50, 3) : '',
            ]),
          ),
          ...(['on', 'off'] as const).map((v) => [
            `all rounds: ${label[v]}`,
            fixed(all[v].rps, 0),
            fixed(all[v].p50, 3),
            fixed(all[v].p99, 3),
            String(all[v].non2xx),
            v === 'on' ? fixed(all.on.p50 - all.off.p50, 3) : '',
          ]),
        ],
      ),
    );
    const failed = rounds.some((r) =>
      (['on', 'off'] as const).some((v) => r[v].non2xx > 0 || r[v].errors > 0 || r[v].timeouts > 0),
    );
    const strip = (r: LoadResult) => ({ ...r, latencies: undefined });
    return {
      name,
      connections,
      all,
      added: all.on.p50 - all.off.p50,
      failed,
      results: {
        connections,
        rounds: rounds.map((r) => ({ on: strip(r.on), off: strip(r.off) })),
        pooled: { on: strip(all.on), off: strip(all.off) },
      },
    };
  };

  const loaded = await phase('under load', config.connections, config.durationSeconds);
  const alone = await phase('one at a time', 1, config.aloneSeconds);
  log('');
  log('target check (all rounds pooled):');
  const checks = [loaded, alone].map((p) => ({
    name: `${p.name} (${p.connections} connection${p.connections === 1 ? '' : 's'}): the limiter adds at most ${TARGET_MS} ms to the GET's p50`,
    pass: p.added <= TARGET_MS,
    detail: `${fixed(p.all.on.p50, 3)} ms on, ${fixed(p.all.off.p50, 3)} ms off: ${fixed(p.added, 3)} ms added (ratio ${fixed(p.all.on.p50 / p.all.off.p50, 3)})`,
  }));
  for (const c of checks) log(`  ${c.pass ? 'PASS' : 'MISS'}  ${c.name}: ${c.detail}`);
  const file = await writeResults(
    {
      startedAt: new Date(started).toISOString(),
      machine: host,
      config,
      phases: [loaded.results, alone.results],
      checks,
    },
    'ratelimit',
  );
  log(`\nraw results: ${file}`);
  if (loaded.failed || alone.failed) process.exitCode = 1;
}

await runBench(main);
