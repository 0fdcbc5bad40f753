// `npm run bench:ai`: what the service adds to a model call when it drafts a ticket reply, in one
// run, on 127.0.0.1 only.
//
//   1. a throwaway local stack (HELPDESK_DB_RTT_MS puts its database that far), one installation
//      with the AI add-on, a ticket whose customer asks about a printer jam, and a published
//      help-doc article that matches;
//   2. the model's stand-in (scripts/stack/ai-model-stand-in.ts) answering after BENCH_AI_MODEL_MS,
//      as a model thinks, and the service bundled and served through Miniflare, pointed at it;
//   3. one request at a time, alternating: `POST /v2/tickets/{id}/aidrafts.json`, and the bare
//      call: the very request the service sent the model, sent straight to the stand-in;
//   4. p50 and p95 of each, the service's overhead at the p50 (draft - bare) as a share of the bare
//      call's p50, the database round trips each draft made before its model call (counted where
//      they arrive, as the model request arrives, once the previous draft's after-work is done) and
//      after it until its answer; the target check (overhead at most
//      15 % of the bare p50, one round trip before the model: the median, as the credential's and
//      the rate limit's 30-second look-ups add two to a request now and then); results in bench/results/.
//
// Settings (environment): BENCH_AI_REQUESTS=60 BENCH_AI_MODEL_MS=400 BENCH_AI_WARMUP=5.
import pg from 'pg';
import { startLocalStack } from '../scripts/stack';
import { STAND_IN_MODEL, startAiModelStandIn } from '../scripts/stack/ai-model-stand-in';
import { quietWranglerEnv } from '../scripts/worker-vars';
import { log, runBench, setting, stops } from './lifecycle';
import { align, fixed, machine, percentile, writeResults } from './report';
import { seed } from './seed';
import { serviceBundle } from './workers';

const config = {
  requests: Math.max(5, Math.round(setting('BENCH_AI_REQUESTS', 60))),
  modelMs: setting('BENCH_AI_MODEL_MS', 400),
  warmup: Math.round(setting('BENCH_AI_WARMUP', 5)),
};
Object.assign(process.env, quietWranglerEnv);

/** The service's overhead at the p50 is at most this share of the bare call's p50. */
const TARGET_OVERHEAD = 0.15;
/** Database round trips a draft may make before the model is called. */
const TARGET_TRIPS_BEFORE = 1;

const trips = (stats: ReturnType<Awaited<ReturnType<typeof startLocalStack>>['stats']>) =>
  stats.sqlHttp.requests + stats.wsProxy.connections;

async function main(): Promise<void> {
  const host = machine();
  log(`machine: ${host.nproc} CPUs (${host.cpu}), ${host.memoryGiB} GiB, node ${host.node}, ${host.workerd}`);
  log(
    `settings: ${config.requests} drafts and ${config.requests} bare calls alternating (after ${config.warmup} of each), the model answering after ${config.modelMs} ms`,
  );
  const stack = await startLocalStack({ purpose: 'test' });
  stops.push(stack.stop);
  if (stack.databaseRttMs) log(`the database is ${stack.databaseRttMs} ms away (HELPDESK_DB_RTT_MS)`);
  // the round trips counted when the model is asked: those of the draft before its model call
  let atModel = 0;
  const model = await startAiModelStandIn({
    latencyMs: config.modelMs,
    onChat: () => (atModel = trips(stack.stats())),
  });
  stops.push(model.stop);
  const data = await seed(stack.databaseUrl, 10);
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  await client.query('UPDATE installations SET ai_allowance = 1000000 WHERE id = $1', [data.installationId]);
  await client.end();

  log('bundling the service and serving it, pointed at the stand-in ...');
  const service = await serviceBundle().serve(stack, 'service', {
    AI_BASE_URL: model.url,
    AI_MODEL: STAND_IN_MODEL,
    AI_API_KEY: model.apiKey,
  });
  stops.push(service.stop);
  const headers = { authorization: `Bearer ${data.ownerKey}`, 'content-type': 'application/json' };
  const call = async (path: string, body: unknown) => {
    const response = await fetch(`${service.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const answer = (await response.json()) as Record<string, any>;
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer)}`);
    return answer;
  };
  const inboxes = await fetch(`${service.url}/v2/inboxes.json`, { headers }).then((r) => r.json() as Promise<any>);
  const site = await call('/v2/helpdocssites.json', { helpdocssite: { name: 'Help' } });
  await call('/v2/helpdocssites/helpdocarticles.json', {
    helpDocArticle: {
      helpdocsite: { id: site.helpdocssite.id },
      title: 'Clearing a paper jam',
      contents: `<p>${'Open the rear tray of the printer and pull the jammed paper out gently. '.repeat(20)}</p>`,
      status: 'published',
    },
  });
  const ticket = await call('/v2/tickets.json', {
    subject: 'The printer jams',
    inbox: inboxes.inboxes[0].id,
    customer: { email: 'ada@customers.test', firstName: 'Ada' },
    message: 'My printer shows a paper jam and the rear tray is stuck. What should I do?',
  });
  const draftPath = `/v2/tickets/${ticket.ticket.id}/aidrafts.json`;

  // the bare call: what the service sent the model, sent straight to it
  await call(draftPath, {});
  const [sent] = (await fetch(`${model.controlUrl}/requests?match=The printer jams`).then((r) =>
    r.json(),
  )) as unknown[];
  const bareBody = JSON.stringify(sent);
  const bare = async () => {
    const response = await fetch(`${model.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${model.apiKey}`, 'content-type': 'application/json' },
      body: bareBody,
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`the bare call answered ${response.status}`);
  };

  /** Waits until no exchange has reached the database for 200 ms. */
  const quiet = async () => {
    for (let last = -1; last !== trips(stack.stats());) {
      last = trips(stack.stats());
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const drafts: number[] = [];
  const bares: number[] = [];
  const before: number[] = [];
  const after: number[] = [];
  for (let i = 0; i < config.warmup + config.requests; i++) {
    const measured = i >= config.warmup;
    const start0 = trips(stack.stats());
    let t = performance.now();
    await call(draftPath, { tone: 'concise' });
    const draftMs = performance.now() - t;
    // the write's round trip is counted once the answer is in
    const end0 = trips(stack.stats());
    const modelAsked = atModel;
    // what the draft's events set off after the answer (the history's subscriber) runs now, not in the next draft's count
    await quiet();
    t = performance.now();
    await bare();
    const bareMs = performance.now() - t;
    if (!measured) continue;
    drafts.push(draftMs);
    bares.push(bareMs);
    before.push(modelAsked - start0);
    after.push(end0 - modelAsked);
  }
  const sort = (values: number[]) => [...values].sort((a, b) => a - b);
  const d = sort(drafts);
  const b = sort(bares);
  const p50 = { draft: percentile(d, 50), bare: percentile(b, 50) };
  const p95 = { draft: percentile(d, 95), bare: percentile(b, 95) };
  const overhead = p50.draft - p50.bare;
  const share = overhead / p50.bare;
  // every authenticated request looks its credential and its installation's rate limit up again
  // once its isolate's 30-second memory of them ends (src/auth/authenticate.ts,
  // src/ratelimit/middleware.ts): two exchanges more, about once in 30 s, on any request
  const sortedBefore = sort(before);
  const medianBefore = percentile(sortedBefore, 50);
  const maxBefore = sortedBefore.at(-1)!;
  const meanAfter = after.reduce((sum, n) => sum + n, 0) / after.length;
  log('');
  log(
    align(
      ['request', 'n', 'p50 ms', 'p95 ms'],
      [
        ['POST aidrafts.json (service)', String(d.length), fixed(p50.draft), fixed(p95.draft)],
        ['bare call to the model', String(b.length), fixed(p50.bare), fixed(p95.bare)],
      ],
    ),
  );
  log('');
  log(`overhead at the p50: ${fixed(overhead)} ms, ${fixed(share * 100)} % of the bare call's p50`);
  log(
    `database round trips before the model call: median ${medianBefore}, at most ${maxBefore} (with the 30-second look-ups of the credential and the rate limit); after it, until the answer: ${fixed(meanAfter, 2)} on average (the write, and the drain it sets off)`,
  );
  const checks = [
    {
      check: `overhead at most ${TARGET_OVERHEAD * 100} % of the bare p50`,
      pass: share <= TARGET_OVERHEAD,
      detail: `${fixed(share * 100)} %`,
    },
    {
      check: `at most ${TARGET_TRIPS_BEFORE} database round trip before the model (the median; the 30-second look-ups aside)`,
      pass: medianBefore <= TARGET_TRIPS_BEFORE && maxBefore <= TARGET_TRIPS_BEFORE + 2,
      detail: `median ${medianBefore}, at most ${maxBefore}`,
    },
  ];
  for (const c of checks) log(`${c.pass ? 'PASS' : 'FAIL'}  ${c.check}: ${c.detail}`);
  const file = await writeResults(
    {
      machine: host,
      config,
      databaseRttMs: stack.databaseRttMs,
      p50,
      p95,
      overheadMs: overhead,
      overheadShare: share,
      roundTripsBeforeModel: before,
      roundTripsAfterModel: after,
      checks,
    },
    'ai',
  );
  log(`results: ${file}`);
  if (checks.some((c) => !c.pass)) process.exitCode = 1;
}

void runBench(main);
