// `npm run bench:automation`: what 50 active triggers and 5 SLA policies cost a ticket update, in
// one run, on 127.0.0.1 only.
//
//   1. a throwaway local stack and the service, as the tests start them;
//   2. two installations of BENCH_AUTOMATION_TICKETS tickets each: "none" with no trigger and no
//      policy, "loaded" with 50 active automatic triggers (each with conditions read on every event,
//      none matching, as most triggers on most events) and 5 enabled SLA policies (the fifth
//      matching every ticket, so every update moves its clocks);
//   3. the update: a teammate's reply (`POST /v2/tickets/{id}/messages.json`), which changes the
//      ticket's thread and status; in alternating rounds (none, loaded, then loaded, none...);
//   4. per round: req/s, p50 and p99 of the request, and then the drain: the seconds from the end
//      of the load until every event the round wrote was handed to every subscriber (the triggers
//      and the clocks run there, after the answer), and events drained a second;
//   5. the target check (issue 14: the update at most 1.5 times the same update with none, p50),
//      on the request and on the drain's time an event; results in bench/results/.
//
// Settings (environment): BENCH_AUTOMATION_ROUNDS=2 BENCH_DURATION=6 BENCH_WARMUP=2
// BENCH_CONNECTIONS=4 BENCH_AUTOMATION_TICKETS=200.
import pg from 'pg';
import { createInstallation } from '../scripts/seed';
import { startLocalStack } from '../scripts/stack';
import { quietWranglerEnv } from '../scripts/worker-vars';
import { log, runBench, setting, started, stops } from './lifecycle';
import { load, type LoadResult } from './load';
import { align, fixed, machine, pooled, withClient, writeResults } from './report';
import { startService } from './workers';

const config = {
  rounds: Math.max(1, Math.round(setting('BENCH_AUTOMATION_ROUNDS', 2))),
  durationSeconds: setting('BENCH_DURATION', 6, true),
  warmupSeconds: setting('BENCH_WARMUP', 2),
  connections: setting('BENCH_CONNECTIONS', 4, true),
  tickets: Math.max(1, Math.round(setting('BENCH_AUTOMATION_TICKETS', 200, true))),
};
Object.assign(process.env, quietWranglerEnv);

const TARGET_RATIO = 1.5;
type Variant = 'none' | 'loaded';

async function main(): Promise<void> {
  const host = machine();
  log(
    `machine: ${host.nproc} CPUs (${host.cpu}), ${host.memoryGiB} GiB, node ${host.node}, load average ${host.loadAverageAtStart.join(' ')}`,
  );
  log(
    `settings: ${config.rounds} rounds of each alternating, each ${config.warmupSeconds} s warm-up + ${config.durationSeconds} s measured with ${config.connections} connections; ${config.tickets} tickets an installation`,
  );
  const stack = await startLocalStack({ purpose: 'test' });
  stops.push(stack.stop);
  const service = await startService(stack);
  stops.push(service.stop);

  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  const sites = {
    none: await createInstallation(client, `automation-none-${started}`),
    loaded: await createInstallation(client, `automation-loaded-${started}`),
  };
  await client.end();

  const call = async (key: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as Record<string, any>;
    if (response.status >= 300)
      throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
    return answer;
  };
  const paths = {} as Record<Variant, string[]>;
  for (const variant of ['none', 'loaded'] as const) {
    const key = sites[variant].users.owner.apiKey;
    const inbox = (await call(key, 'GET', '/v2/inboxes.json')).inboxes[0].id as number;
    const priority = (await call(key, 'GET', '/v2/ticketpriorities.json')).ticketpriorities[0].id as number;
    if (variant === 'loaded') {
      for (let i = 1; i <= 50; i++) {
        await call(key, 'POST', '/v2/triggers.json', {
          trigger: {
            name: `Bench trigger ${i}`,
            displayOrder: i,
            conditions: [
              { field: 11, operator: 1, value: `never-${i}` },
              { field: 1, operator: 4, value: '6' },
              { field: 12, operator: 1, value: `nowhere-${i}`, matchRequirement: 'ANY' },
            ],
            triggeractions: [{ type: 2, value: String(priority) }],
          },
        });
      }
      for (let i = 1; i <= 5; i++) {
        await call(key, 'POST', '/v2/slas.json', {
          sla: {
            name: `Bench policy ${i}`,
            displayOrder: i,
            businesshours:
              i % 2 ? { id: (await call(key, 'GET', '/v2/businesshours.json')).businesshours[0].id } : null,
            ...(i < 5 ? { slainboxes: [{ inbox: { id: inbox }, conditionoption: 'ne' }] } : {}),
            slaticketpriorities: [
              { priority: { id: priority }, hours: 4, minutes: 0, replyTimeMinutes: 60, resolutionTimeMinutes: 1440 },
            ],
            slanotifications: [{ condition: 'warning', type: 'firstResponse', duration: 30 }],
          },
        });
      }
    }
    const ids: number[] = [];
    for (let i = 0; i < config.tickets; i++) {
      ids.push(
        (
          await call(key, 'POST', '/v2/tickets.json', {
            ticket: {
              subject: `Bench ticket ${i}`,
              inbox,
              priority: { id: priority },
              customer: { email: `c${i % 20}@automation.bench` },
              message: 'Help',
            },
          })
        ).ticket.id,
      );
    }
    paths[variant] = ids.map((id) => `/v2/tickets/${id}/messages.json`);
    log(`${variant}: ${ids.length} tickets${variant === 'loaded' ? ', 50 triggers, 5 SLA policies' : ''}`);
  }
  const pending = (installationId: number) =>
    withClient(stack.databaseUrl, async (c) =>
      Number(
        (
          await c.query<{ n: string }>(
            'SELECT count(*) AS n FROM events WHERE installation_id = $1 AND dispatched_at IS NULL',
            [installationId],
          )
        ).rows[0]!.n,
      ),
    );
  const eventCount = (installationId: number) =>
    withClient(stack.databaseUrl, async (c) =>
      Number(
        (await c.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE installation_id = $1', [installationId]))
          .rows[0]!.n,
      ),
    );
  const drained = async (installationId: number) => {
    const from = Date.now();
    while ((await pending(installationId)) > 0) {
      if (Date.now() - from > 600_000) throw new Error('the drain did not finish in 10 minutes');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return (Date.now() - from) / 1000;
  };
  for (const variant of ['none', 'loaded'] as const) await drained(sites[variant].id);

  type Round = LoadResult & { drainSeconds: number; events: number };
  const rounds: Record<Variant, Round>[] = [];
  for (let round = 1; round <= config.rounds; round++) {
    const order: Variant[] = round % 2 === 1 ? ['none', 'loaded'] : ['loaded', 'none'];
    const results = {} as Record<Variant, Round>;
    for (const variant of order) {
      const site = sites[variant];
      const before = await eventCount(site.id);
      const result = await load({
        url: service.url,
        paths: paths[variant],
        headers: { authorization: `Bearer ${site.users.owner.apiKey}` },
        connections: config.connections,
        warmupSeconds: config.warmupSeconds,
        durationSeconds: config.durationSeconds,
        postBody: JSON.stringify({ message: 'Bench reply {n}' }),
        keepLatencies: true,
      });
      const drainSeconds = await drained(site.id);
      results[variant] = { ...result, drainSeconds, events: (await eventCount(site.id)) - before };
      log(
        `  round ${round}, ${variant}: ${result.rps.toFixed(0)} req/s, p50 ${fixed(result.p50, 2)} ms, p99 ${fixed(result.p99, 2)} ms, non-2xx ${result.non2xx}; ` +
          `${results[variant].events} events, drained ${fixed(drainSeconds, 1)} s after the load`,
      );
    }
    rounds.push(results);
  }
  const all = { none: pooled(rounds.map((r) => r.none)), loaded: pooled(rounds.map((r) => r.loaded)) };
  const drainTotal = (v: Variant) => rounds.reduce((sum, r) => sum + r[v].drainSeconds, 0);
  const eventsTotal = (v: Variant) => rounds.reduce((sum, r) => sum + r[v].events, 0);
  // the wall time an event took to be written and handled, at this load: (warm-up, load and drain seconds) / events written
  const perEvent = (v: Variant) =>
    ((config.durationSeconds + config.warmupSeconds) * config.rounds + drainTotal(v)) / Math.max(1, eventsTotal(v));
  const requestRatio = all.loaded.p50 / all.none.p50;
  const drainRatio = perEvent('loaded') / perEvent('none');
  log('');
  log(
    align(
      [
        'a reply, all rounds',
        'req/s',
        'p50 ms',
        'p99 ms',
        'events',
        'drain after load s',
        'ms an event (load + drain)',
      ],
      (['none', 'loaded'] as const).map((v) => [
        v,
        fixed(all[v].rps, 0),
        fixed(all[v].p50, 2),
        fixed(all[v].p99, 2),
        String(eventsTotal(v)),
        fixed(drainTotal(v), 1),
        fixed(perEvent(v) * 1000, 2),
      ]),
    ),
  );
  log('');
  log(
    `request p50 loaded / none: ${fixed(requestRatio, 3)} (target at most ${TARGET_RATIO}): ${requestRatio <= TARGET_RATIO ? 'met' : 'MISSED'}`,
  );
  log(
    `time an event to be handled, loaded / none: ${fixed(drainRatio, 3)} (the same target, held to the work after the answer): ${drainRatio <= TARGET_RATIO ? 'met' : 'MISSED'}`,
  );
  const file = await writeResults({ config, host, rounds, pooled: all, requestRatio, drainRatio }, 'automation');
  log(`results: ${file}`);
}

await runBench(main);
