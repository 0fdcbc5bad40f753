// `npm run bench:assemble`: what one page of `GET /v2/companies.json?pageSize=50&includes=all`
// costs in workerd once the database has answered, the network left out: the service's wire body
// against the bare SQL Worker's answer, over the very same captured answer (issue 11's list
// target (iv) compares the two under load; this tells how much of the gap is the page's own work).
//
//   1. a throwaway local stack, seeded as `npm run bench` seeds it (BENCH_COMPANIES, 200 by
//      default: only the first page is read);
//   2. the benchmark's list statement (bench/statements.ts) sent once through the Neon driver to
//      the SQL-over-HTTP stand-in, its HTTP answer captured;
//   3. bench/workers/assemble.ts in workerd with that answer: each case run 10 and 510 times in one
//      request, the difference over 500 its time a call; BENCH_ASSEMBLE_ROUNDS rounds (6), the
//      least kept (what the machine's other work adds is never less than nothing);
//   4. the table: the driver's parse (both pay it), the bare answer, the service's parts and body,
//      and each Worker's whole request (its app's routing and middleware, the body read).
import { neon, neonConfig } from '@neondatabase/serverless';
import { startLocalStack } from '../scripts/stack';
import { quietWranglerEnv, workerVars } from '../scripts/worker-vars';
import { applyLocalStackSettings } from '../src/db/local-stack-settings';
import { log, runBench, setting, stops } from './lifecycle';
import { align, fixed, machine, writeResults } from './report';
import { seed } from './seed';
import { hashSecret } from '../src/auth/secrets';
import { companyListStatement, credentialLookUpStatement } from './statements';
import { freePort, inspector } from './isolate-heap';
import { bySelfTime } from './cpu-profile';
import { startAssemble } from './workers';

const config = {
  companies: Math.round(setting('BENCH_COMPANIES', 200)),
  rounds: Math.max(1, Math.round(setting('BENCH_ASSEMBLE_ROUNDS', 6))),
  /** a case to take a V8 CPU profile of afterwards (2,000 calls), as `npm run bench:profile` prints one */
  profile: process.env.BENCH_ASSEMBLE_PROFILE,
};
Object.assign(process.env, quietWranglerEnv);
const LIST_QUERY = 'pageSize=50&includes=all';
const CASES = ['driver', 'bare', 'query', 'page', 'service', 'bareRequest', 'request'] as const;

/** The stand-in's HTTP answer to the statement, as the driver received it. */
async function capturedAnswer(databaseUrl: string, text: string, params: unknown[]): Promise<string> {
  let body = '';
  neonConfig.fetchFunction = async (url: string, init: RequestInit) => {
    const response = await fetch(url, init);
    body = await response.clone().text();
    return response;
  };
  await neon(databaseUrl).query(text, params, { fullResults: true });
  if (!body) throw new Error('the statement went nowhere');
  return body;
}

async function main(): Promise<void> {
  const host = machine();
  log(
    `machine: ${host.nproc} CPUs (${host.cpu}), node ${host.node}, ${host.workerd}, load average ${host.loadAverageAtStart.join(' ')}`,
  );
  const stack = await startLocalStack({ purpose: 'test' });
  stops.push(stack.stop);
  const data = await seed(stack.databaseUrl, config.companies);
  const who = {
    kind: 'teammate',
    installationId: data.installationId,
    userId: data.ownerUserId,
    role: 'owner',
  } as const;
  const statement = await companyListStatement(who, LIST_QUERY);
  const auth = credentialLookUpStatement(await hashSecret(data.ownerKey));
  applyLocalStackSettings(workerVars(stack));
  const answers = {
    list: await capturedAnswer(stack.databaseUrl, statement.text, statement.params),
    auth: await capturedAnswer(stack.databaseUrl, auth.text, auth.params),
  };
  log(`captured: the list statement's answer, ${fixed(answers.list.length / 1024, 1)} KiB, and the key's look-up`);
  const inspectorPort = config.profile ? await freePort() : undefined;
  const worker = await startAssemble(
    {
      BENCH_ANSWERS: JSON.stringify({ [statement.text]: answers.list, [auth.text]: answers.auth }),
      BENCH_LIST: JSON.stringify({ who, key: data.ownerKey, query: LIST_QUERY, statements: { list: statement } }),
    },
    inspectorPort,
  );
  stops.push(worker.stop);

  const call = async (name: string, times: number) => {
    const started = performance.now();
    const response = await fetch(`${worker.url}/?case=${name}&n=${times}`);
    if (response.status !== 204) throw new Error(`${name}: ${response.status} ${await response.text()}`);
    return performance.now() - started;
  };
  const best: Record<string, number> = {};
  for (let round = 0; round < config.rounds; round++) {
    for (const name of CASES) {
      await call(name, 100); // warm
      const few = await call(name, 10);
      const many = await call(name, 510);
      best[name] = Math.min(best[name] ?? Infinity, ((many - few) / 500) * 1000);
    }
  }
  const own = { bare: best.bare! - best.driver!, service: best.service! - best.driver! };
  log('');
  log(
    align(
      ['one page in workerd', 'µs a call', 'beyond the driver, µs'],
      [
        ['driver: parse the answer', fixed(best.driver!, 1), ''],
        ['bare: driver + JSON of its rows', fixed(best.bare!, 1), fixed(own.bare, 1)],
        ['query: the query string validated', fixed(best.query!, 1), ''],
        ['page: query + driver + listBody', fixed(best.page!, 1), fixed(best.page! - best.driver!, 1)],
        ['service: page + its JSON', fixed(best.service!, 1), fixed(own.service, 1)],
        [
          "bare request: the bare SQL Worker's app",
          fixed(best.bareRequest!, 1),
          fixed(best.bareRequest! - best.driver!, 1),
        ],
        ["request: the service's app, limiter off", fixed(best.request!, 1), fixed(best.request! - best.driver!, 1)],
      ],
    ),
  );
  log('');
  log(
    `the service's page costs ${fixed(own.service - own.bare, 1)} µs more than the bare answer's in workerd, its whole request ${fixed(best.request! - best.bareRequest!, 1)} µs more than the bare Worker's (the least of ${config.rounds} rounds)`,
  );
  const file = await writeResults({ config, host, microseconds: best, beyondDriver: own }, 'assemble');
  log(`results: ${file}`);
  if (config.profile && inspectorPort) {
    const session = await inspector(inspectorPort, 'bench-assemble');
    stops.push(async () => session.close());
    await session.call('Profiler.enable');
    await session.call('Profiler.setSamplingInterval', { interval: 50 });
    await session.call('Profiler.start');
    await call(config.profile, 2_000);
    const { profile } = await session.call('Profiler.stop');
    const { total, rows } = bySelfTime(profile);
    log('');
    log(
      `${config.profile}: ${fixed(total / 2_000, 1)} µs sampled a call (idle and the runtime's own included); by self time:`,
    );
    for (const [name, us] of rows.slice(0, 30)) log(`  ${fixed(us / 2_000, 1).padStart(7)} µs  ${name}`);
  }
}

await runBench(main);
