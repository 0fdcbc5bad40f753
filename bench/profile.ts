// Where the service's isolate spends its CPU under one target's load: a V8 CPU profile taken
// through workerd's inspector while `GET /v2/companies.json?pageSize=50&includes=all` (or
// BENCH_PROFILE_PATH) is loaded as `npm run bench` loads it; prints the functions by self time
// and writes the whole profile (`bench/results/profile-<time>.cpuprofile`, for Chrome's DevTools).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { quietWranglerEnv } from '../scripts/worker-vars';
import { startLocalStack, type LocalStack } from '../scripts/stack';
import { freePort, inspector } from './isolate-heap';
import { load } from './load';
import { log, runBench, setting, stops } from './lifecycle';
import { seed } from './seed';
import { bySelfTime } from './cpu-profile';
import { startService } from './workers';

const config = {
  seconds: setting('BENCH_DURATION', 8),
  connections: setting('BENCH_CONNECTIONS', 20),
  companies: setting('BENCH_COMPANIES', 10_000),
  path: process.env.BENCH_PROFILE_PATH ?? '/v2/companies.json?pageSize=50&includes=all',
};
Object.assign(process.env, quietWranglerEnv);

async function main(): Promise<void> {
  const stack: LocalStack = await startLocalStack({ purpose: 'test' });
  stops.push(stack.stop);
  const data = await seed(stack.databaseUrl, config.companies);
  const inspectorPort = await freePort();
  const service = await startService(stack, { inspectorPort });
  stops.push(service.stop);
  const headers = { authorization: `Bearer ${data.ownerKey}` };
  const session = await inspector(inspectorPort, 'helpdesk-api');
  stops.push(async () => session.close());
  await session.call('Profiler.enable');
  await session.call('Profiler.setSamplingInterval', { interval: 100 });
  // warm up unprofiled, then profile the measured seconds
  await load({
    url: service.url,
    paths: [config.path],
    headers,
    connections: config.connections,
    warmupSeconds: 0,
    durationSeconds: 3,
  });
  await session.call('Profiler.start');
  const result = await load({
    url: service.url,
    paths: [config.path],
    headers,
    connections: config.connections,
    warmupSeconds: 0,
    durationSeconds: config.seconds,
  });
  const { profile } = await session.call('Profiler.stop');
  log(
    `${config.path}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50.toFixed(1)} ms, ${result.requests} requests, non-2xx ${result.non2xx}`,
  );
  const { total, rows } = bySelfTime(profile);
  const perRequest = (us: number) => (us / 1000 / result.requests).toFixed(3);
  log(`isolate CPU sampled: ${(total / 1000).toFixed(0)} ms, ${perRequest(total)} ms a request (idle included)`);
  for (const [name, us] of rows.slice(0, Number(process.env.BENCH_PROFILE_TOP ?? 40))) {
    log(`  ${((us / total) * 100).toFixed(1).padStart(5)} %  ${perRequest(us)} ms/req  ${name}`);
  }
  mkdirSync(path.join('bench', 'results'), { recursive: true });
  const file = path.join('bench', 'results', `profile-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  log(`profile: ${file}`);
}

runBench(main);
