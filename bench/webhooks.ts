// `npm run bench:webhooks`: outbound webhooks fanned out and delivered, against a bare Queue
// consumer doing the same fetches, in one run, on 127.0.0.1 only.
//
//   1. a throwaway local stack and the service, as the tests start them; 10 receivers
//      (BENCH_WEBHOOK_RECEIVERS), small HTTP servers that answer 200 at once and note each
//      delivery's id and when it arrived, in a process of their own (webhook-receivers-child.ts:
//      never waiting on the local stack's proxies, which share this process);
//   2. one installation with BENCH_WEBHOOK_TICKETS tickets, then an endpoint per receiver for
//      every event;
//   3. the service: BENCH_WEBHOOK_EVENTS ticket events (a teammate's `PATCH /v2/tickets/{id}.json`
//      changing the priority, one `ticket.priority` event each, the tickets in turn) written at
//      BENCH_WEBHOOK_RATE a second; each reaches every receiver through the outbox, the drain's
//      fan-out and the queue's deliveries (src/resources/webhookendpoints/);
//   4. the bare consumer (bench/workers/bare-webhooks.ts): the same number of events at the same
//      rate, each put on a queue as one message per receiver with the body the service sent,
//      each message one signed POST, as the service's delivery makes it;
//   5. the paced phase runs in BENCH_WEBHOOK_ROUNDS rounds, the service then the bare one in each,
//      so that what else the machine does falls on both alike; the target's ratio is the median of
//      the rounds' p99 ratios;
//   6. per variant: delivery p50 and p99 from commit to receipt (the service's commit is when
//      the transaction that wrote the event committed, as Postgres recorded it; the bare one's
//      is the moment it queues the messages), events a
//      second (events whose every delivery arrived, over the seconds from the first commit to
//      the last receipt), and what was lost or doubled (the receivers' delivery ids, and the
//      service's delivery rows); the target check (issue 14: p99 at most 2 times the bare
//      consumer's, nothing lost or doubled); results in bench/results/;
//   7. printed beside the target, not part of it: each service round's database exchanges and
//      WebSocket connections an event (its write, drain and deliveries), and a side-by-side phase
//      (BENCH_WEBHOOK_SIDE_BY_SIDE events, a round's by default, 0 for none) where each tick sends
//      one event of each variant, so the service's own load falls on the bare consumer too.
//
// Settings (environment): BENCH_WEBHOOK_EVENTS=10000 (over all rounds) BENCH_WEBHOOK_ROUNDS=3
// BENCH_WEBHOOK_RATE=20 (events a second) BENCH_WEBHOOK_RECEIVERS=10 BENCH_WEBHOOK_TICKETS=500
// BENCH_WEBHOOK_BURST=2000. BENCH_WEBHOOK_PROFILE=1 also takes a V8 CPU profile of the service's
// isolate during its first paced round and prints where its time goes (bench/cpu-profile.ts).
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createInstallation } from '../scripts/seed';
import { startLocalStack } from '../scripts/stack';
import { quietWranglerEnv } from '../scripts/worker-vars';
import { log, runBench, setting, started, stops } from './lifecycle';
import { align, fixed, machine, percentile, withClient, writeResults } from './report';
import { startBareWebhooks, startService } from './workers';
import { freePort, inspector } from './isolate-heap';
import { bySelfTime } from './cpu-profile';
import type { Receipt, ReceiversMessage, ReceiversRequest } from './webhook-receivers-child';

const config = {
  events: Math.max(1, Math.round(setting('BENCH_WEBHOOK_EVENTS', 10_000, true))),
  rate: setting('BENCH_WEBHOOK_RATE', 20, true),
  receivers: Math.max(1, Math.round(setting('BENCH_WEBHOOK_RECEIVERS', 10, true))),
  tickets: Math.max(1, Math.round(setting('BENCH_WEBHOOK_TICKETS', 500, true))),
  burst: Math.max(1, Math.round(setting('BENCH_WEBHOOK_BURST', 2_000, true))),
  rounds: Math.max(1, Math.round(setting('BENCH_WEBHOOK_ROUNDS', 3, true))),
  burstWriters: Math.max(1, Math.round(setting('BENCH_WEBHOOK_BURST_WRITERS', 8, true))),
  profile: process.env.BENCH_WEBHOOK_PROFILE === '1',
  /** events of the side-by-side phase (a round's when unset; 0: none) */
  sideBySide: process.env.BENCH_WEBHOOK_SIDE_BY_SIDE,
};
Object.assign(process.env, quietWranglerEnv);

const TARGET_RATIO = 2;
type Variant = 'service' | 'bare';

const receiversChild = path.join(path.dirname(fileURLToPath(import.meta.url)), 'webhook-receivers-child.ts');

/**
 * The receivers, in a child process (`webhook-receivers-child.ts`): `each` per variant. Their
 * receipts are appended to `receipts` as they come, and the first body any received to `bodies`.
 */
async function startReceivers(
  each: number,
  receipts: Record<Variant, Receipt[]>,
  bodies: string[],
): Promise<{ urls: Record<Variant, string[]>; stop(): Promise<void> }> {
  const child = fork(receiversChild, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const urls = await new Promise<Record<Variant, string[]>>((resolve, reject) => {
    child.on('message', (message: ReceiversMessage) => {
      if ('urls' in message) resolve(message.urls as Record<Variant, string[]>);
      else if ('body' in message) bodies.push(message.body);
      else for (const [variant, receipt] of message.receipts) receipts[variant as Variant].push(receipt);
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the receivers' process exited with ${code}`)));
    child.send({ variants: ['service', 'bare'], each } satisfies ReceiversRequest);
  });
  return {
    urls,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await exited;
    },
  };
}

/** Calls `send(i)` for i in 0..count-1, the i-th at `i / rate` seconds from now, without waiting for earlier ones. */
async function paced(
  count: number,
  rate: number,
  send: (i: number) => Promise<void>,
): Promise<{ failures: number; seconds: number }> {
  const from = performance.now();
  let failures = 0;
  const pending = new Set<Promise<void>>();
  for (let i = 0; i < count; i++) {
    const due = from + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const call = send(i).catch(() => void failures++);
    pending.add(call);
    void call.finally(() => pending.delete(call));
  }
  await Promise.all(pending);
  return { failures, seconds: (performance.now() - from) / 1000 };
}

interface Outcome {
  /** seconds from the first commit in which a delivery took over a second */
  slowSeconds: number[];
  events: number;
  expected: number;
  received: number;
  lost: number;
  doubled: number;
  p50: number;
  p99: number;
  max: number;
  eventsPerSecond: number;
  writeSeconds: number;
  writeFailures: number;
  /** seconds from the last write to the last delivery */
  tailSeconds: number;
  /** the p99 of the deliveries of each tenth of the run (by their commit): whether the slow ones gather at its start (warm-up) or spread over it */
  p99ByTenth: number[];
}

/**
 * The service's receipts timed from their event's commit: when the transaction that wrote the
 * event committed (`pg_xact_commit_timestamp` of its `xact`, the writing transaction's id: the
 * row's `xmin` is the drain's that marked it dispatched; the local stack's Postgres keeps commit
 * times). The event's `occurredAt` is its transaction's start, and the
 * write's fan-out now runs in that transaction, before its commit. Answers false, leaving the
 * receipts timed from `occurredAt`, where the database keeps no commit times (a `DATABASE_URL`
 * without `track_commit_timestamp`).
 */
async function timedFromCommit(databaseUrl: string, installationId: number, receipts: Receipt[]): Promise<boolean> {
  try {
    const committed = await withClient(
      databaseUrl,
      async (c) =>
        new Map(
          (
            await c.query<{ delivery_id: string; at: number }>(
              `
      SELECT d.delivery_id, extract(epoch FROM pg_xact_commit_timestamp((e.xact % 4294967296)::text::xid))::float8 * 1000 AS at
        FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE d.installation_id = $1`,
              [installationId],
            )
          ).rows.map((row) => [row.delivery_id, Number(row.at)]),
        ),
    );
    for (const receipt of receipts) {
      const at = committed.get(receipt.deliveryId);
      if (at === undefined || !Number.isFinite(at)) continue;
      receipt.occurredAt = at;
      receipt.latency = receipt.receivedAt - at;
    }
    return true;
  } catch {
    return false;
  }
}

/** Waits until `expected` deliveries arrived (or nothing arrived for 60 s), then sums up. */
async function outcome(
  receipts: Receipt[],
  expected: number,
  events: number,
  write: { failures: number; seconds: number },
  writesEnded: number,
  restamp?: (receipts: Receipt[]) => Promise<unknown>,
): Promise<Outcome> {
  let seen = -1;
  let quietSince = Date.now();
  while (receipts.length < expected) {
    if (receipts.length !== seen) {
      seen = receipts.length;
      quietSince = Date.now();
    } else if (Date.now() - quietSince > 60_000) {
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await new Promise((resolve) => setTimeout(resolve, 2_000)); // a late double would arrive now
  await restamp?.(receipts);
  const ids = new Set(receipts.map((r) => r.deliveryId));
  const latencies = receipts.map((r) => r.latency).sort((a, b) => a - b);
  const first = Math.min(...receipts.map((r) => r.occurredAt));
  const last = Math.max(...receipts.map((r) => r.receivedAt));
  // the seconds (from the first commit) in which some delivery took over a second: where the p99 comes from
  const slowSeconds = [
    ...new Set(receipts.filter((r) => r.latency > 1000).map((r) => Math.floor((r.occurredAt - first) / 1000))),
  ].sort((a, b) => a - b);
  const lastCommit = Math.max(...receipts.map((r) => r.occurredAt));
  const tenths = Array.from({ length: 10 }, () => [] as number[]);
  for (const r of receipts)
    tenths[Math.min(9, Math.floor(((r.occurredAt - first) / Math.max(1, lastCommit - first)) * 10))]!.push(r.latency);
  return {
    slowSeconds,
    p99ByTenth: tenths.map((list) =>
      percentile(
        list.sort((a, b) => a - b),
        99,
      ),
    ),
    events,
    expected,
    received: receipts.length,
    lost: expected - ids.size,
    doubled: receipts.length - ids.size,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? NaN,
    eventsPerSecond: ids.size / (expected / events) / ((last - first) / 1000),
    writeSeconds: write.seconds,
    writeFailures: write.failures,
    tailSeconds: (last - writesEnded) / 1000,
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** The paced phase whole: its rounds added up, its percentiles over every round's deliveries. */
function together(rounds: Outcome[], latencies: number[]): Outcome {
  const sorted = [...latencies].sort((a, b) => a - b);
  const sum = (pick: (r: Outcome) => number) => rounds.reduce((total, r) => total + pick(r), 0);
  return {
    slowSeconds: rounds.flatMap((r) => r.slowSeconds),
    p99ByTenth: [],
    events: sum((r) => r.events),
    expected: sum((r) => r.expected),
    received: sum((r) => r.received),
    lost: sum((r) => r.lost),
    doubled: sum((r) => r.doubled),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
    eventsPerSecond: sum((r) => r.eventsPerSecond) / rounds.length,
    writeSeconds: sum((r) => r.writeSeconds),
    writeFailures: sum((r) => r.writeFailures),
    tailSeconds: Math.max(...rounds.map((r) => r.tailSeconds)),
  };
}

/** A CPU profile of the service's isolate from now; `report` stops it and prints the functions by self time, per event. */
async function profileStarted(inspectorPort: number) {
  const session = await inspector(inspectorPort, 'helpdesk-api');
  await session.call('Profiler.enable');
  await session.call('Profiler.setSamplingInterval', { interval: 1000 });
  await session.call('Profiler.start');
  return {
    async report(events: number) {
      const { profile } = await session.call('Profiler.stop');
      session.close();
      const { total, rows } = bySelfTime(profile);
      const busy = rows.filter(([name]) => !name.startsWith('(idle)'));
      const perEvent = (us: number) => (us / 1000 / events).toFixed(3);
      log(
        `service isolate, paced round 1: ${perEvent(total)} ms sampled an event, ${perEvent(total - busy.reduce((a, [, us]) => a + us, 0))} ms of it as (idle), as workerd tells V8`,
      );
      for (const [name, us] of busy.slice(0, Number(process.env.BENCH_PROFILE_TOP ?? 30)))
        log(`  ${((us / total) * 100).toFixed(1).padStart(5)} %  ${perEvent(us)} ms  ${name}`);
    },
  };
}

async function main(): Promise<void> {
  const host = machine();
  log(
    `machine: ${host.nproc} CPUs (${host.cpu}), ${host.memoryGiB} GiB, node ${host.node}, ${host.workerd}, load average ${host.loadAverageAtStart.join(' ')}`,
  );
  log(
    `settings: ${config.events} events at ${config.rate} a second to ${config.receivers} receivers (${config.events * config.receivers} deliveries a variant); ${config.tickets} tickets`,
  );
  const stack = await startLocalStack({ purpose: 'test' });
  stops.push(stack.stop);
  const inspectorPort = config.profile ? await freePort() : undefined;
  const service = await startService(stack, { inspectorPort });
  stops.push(service.stop);
  const bare = await startBareWebhooks();
  stops.push(bare.stop);

  const receipts: Record<Variant, Receipt[]> = { service: [], bare: [] };
  const bodies: string[] = [];
  const receiving = await startReceivers(config.receivers, receipts, bodies);
  stops.push(receiving.stop);
  const receivers = receiving.urls;

  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  const site = await createInstallation(client, `webhooks-${started}`);
  await client.end();
  const key = site.users.owner.apiKey;
  const call = async (method: string, path: string, body?: unknown) => {
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
  const inbox = (await call('GET', '/v2/inboxes.json')).inboxes[0].id as number;
  const priorities = ((await call('GET', '/v2/ticketpriorities.json')).ticketpriorities as { id: number }[])
    .slice(0, 2)
    .map((p) => p.id);
  const tickets: number[] = [];
  for (let i = 0; i < config.tickets; i++) {
    tickets.push(
      (
        await call('POST', '/v2/tickets.json', {
          ticket: {
            subject: `Webhook bench ${i}`,
            inbox,
            priority: { id: priorities[0] },
            customer: { email: `c${i % 50}@webhooks.bench` },
            message: 'Help',
          },
        })
      ).ticket.id,
    );
  }
  const pending = () =>
    withClient(stack.databaseUrl, async (c) =>
      Number(
        (
          await c.query<{ n: string }>(
            'SELECT count(*) AS n FROM events WHERE installation_id = $1 AND dispatched_at IS NULL',
            [site.id],
          )
        ).rows[0]!.n,
      ),
    );
  while ((await pending()) > 0) await new Promise((resolve) => setTimeout(resolve, 200));
  for (const url of receivers.service) {
    await call('POST', '/v2/webhookendpoints.json', {
      webhookendpoint: { url, token: 'bench-webhooks-token', allEvents: true, allInboxes: true },
    });
  }
  log(`${tickets.length} tickets, ${receivers.service.length} endpoints`);

  // the service's write: ticket k's j-th update sets the other priority, so every PATCH is a change
  const failed: string[] = [];
  const updates = new Map<number, number>();
  // how long each of the service's writes took to answer, the fan-out in its transaction included
  const writeTimes: number[] = [];
  const serviceWrite = async (i: number) => {
    const sent = performance.now();
    const ticket = tickets[i % tickets.length]!;
    const round = (updates.get(ticket) ?? 0) + 1;
    updates.set(ticket, round);
    const response = await fetch(`${service.url}/v2/tickets/${ticket}.json`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ticket: { priority: { id: priorities[round % 2] } } }),
    });
    const text = await response.text();
    writeTimes.push(performance.now() - sent);
    if (response.status !== 200) {
      if (failed.length < 5) failed.push(`${response.status} ${text.slice(0, 300)}`);
      throw new Error(`PATCH answered ${response.status}`);
    }
  };
  // the bare consumer's: the same event, with the body the service sent
  const bareWrite = async () => {
    const response = await fetch(`${bare.url}/events`, {
      method: 'POST',
      body: JSON.stringify({ receivers: receivers.bare, payload: bodies[0], event: 'ticket.priority' }),
    });
    await response.arrayBuffer();
    if (response.status !== 202) throw new Error(`bare answered ${response.status}`);
  };
  const writers: Record<Variant, (i: number) => Promise<void>> = { service: serviceWrite, bare: bareWrite };
  const expected = (events: number) => events * config.receivers;

  const phases = { paced: {} as Record<Variant, Outcome>, burst: {} as Record<Variant, Outcome> };
  const restamps: Record<Variant, ((list: Receipt[]) => Promise<unknown>) | undefined> = {
    service: async (list) => {
      if (!(await timedFromCommit(stack.databaseUrl, site.id, list)))
        log(
          "service: the database keeps no commit times; timed from the events' occurredAt (their transactions' start)",
        );
    },
    bare: undefined,
  };
  // the paced phase in rounds, the variants in turn, so that whatever else the machine does falls on both alike
  const perRound = Math.max(1, Math.round(config.events / config.rounds));
  const rounds: Record<Variant, Outcome[]> = { service: [], bare: [] };
  const pooled: Record<Variant, number[]> = { service: [], bare: [] };
  for (let round = 1; round <= config.rounds; round++) {
    for (const variant of ['service', 'bare'] as const) {
      receipts[variant].length = 0;
      const profiling =
        inspectorPort && variant === 'service' && round === 1 ? await profileStarted(inspectorPort) : undefined;
      const before = stack.stats();
      const write = await paced(perRound, config.rate, writers[variant]);
      if (profiling) await profiling.report(perRound);
      const result = await outcome(
        receipts[variant],
        expected(perRound),
        perRound,
        write,
        Date.now(),
        restamps[variant],
      );
      rounds[variant].push(result);
      if (variant === 'service') {
        // what the round's events cost the database, the drains and deliveries after them included
        const after = stack.stats();
        const each = (n: number) => fixed(n / perRound, 2);
        log(
          `service, paced round ${round}: an event made ${each(after.sqlHttp.requests - before.sqlHttp.requests)} HTTP exchanges and opened ${each(after.wsProxy.connections - before.wsProxy.connections)} WebSocket connections`,
        );
      }
      pooled[variant].push(...receipts[variant].map((r) => r.latency));
      const slow = result.slowSeconds;
      log(
        `${variant}, paced round ${round}/${config.rounds}: p50 ${fixed(result.p50, 0)} ms, p99 ${fixed(result.p99, 0)} ms; p99 by tenth (ms) ${result.p99ByTenth.map((p) => fixed(p, 0)).join(' ')}; ${slow.length} seconds with a delivery over 1 s${slow.length ? `, at ${slow.slice(0, 20).join(' ')}` : ''}`,
      );
    }
    log(`round ${round}: paced p99 service / bare ${fixed(rounds.service.at(-1)!.p99 / rounds.bare.at(-1)!.p99, 3)}`);
  }
  for (const variant of ['service', 'bare'] as const)
    phases.paced[variant] = together(rounds[variant], pooled[variant]);
  const times = [...writeTimes].sort((a, b) => a - b);
  log(
    `service, paced: PATCH answered p50 ${fixed(percentile(times, 50), 1)} ms, p99 ${fixed(percentile(times, 99), 1)} ms`,
  );
  if (failed.length) log(`service: failed writes, the first: ${failed.join(' | ')}`);
  // where the time went: from the write's start to its commit (its own work, then the fan-out), and from the commit to the delivery's record
  const lag = await withClient(
    stack.databaseUrl,
    async (c) =>
      (
        await c.query<Record<string, number>>(
          `
    WITH t AS (SELECT e.occurred_at, pg_xact_commit_timestamp((e.xact % 4294967296)::text::xid) AS committed_at, d.delivered_at
                 FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE d.installation_id = $1)
    SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM committed_at - occurred_at) * 1000) AS write_p50,
           percentile_disc(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM committed_at - occurred_at) * 1000) AS write_p99,
           percentile_disc(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM delivered_at - committed_at) * 1000) AS deliver_p50,
           percentile_disc(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM delivered_at - committed_at) * 1000) AS deliver_p99
      FROM t`,
          [site.id],
        )
      ).rows[0],
  ).catch(() => undefined);
  const [{ deadlocks }] = (await withClient(
    stack.databaseUrl,
    async (c) =>
      (
        await c.query<{ deadlocks: string }>(
          'SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()',
        )
      ).rows,
  )) as [{ deadlocks: string }];
  log(
    `service, paced: ${deadlocks} deadlocks in the database so far (each costs Postgres's deadlock_timeout, 1 s, before one side runs again)`,
  );
  if (lag)
    log(
      `service, paced: write's start to its commit p50 ${fixed(Number(lag.write_p50), 0)} ms, p99 ${fixed(Number(lag.write_p99), 0)} ms; commit to delivery recorded p50 ${fixed(Number(lag.deliver_p50), 0)} ms, p99 ${fixed(Number(lag.deliver_p99), 0)} ms`,
    );

  // side by side: each tick one write of each variant, so the service's load (its writes, their
  // drains and deliveries) falls on the bare consumer too: printed beside the target, not the target
  const sideBySideEvents =
    config.sideBySide === undefined ? perRound : Math.max(0, Math.round(Number(config.sideBySide) || 0));
  let sideBySide: Record<Variant, Outcome> | undefined;
  if (sideBySideEvents > 0) {
    for (const variant of ['service', 'bare'] as const) receipts[variant].length = 0;
    const write = await paced(sideBySideEvents, config.rate, async (i) => {
      await Promise.all([serviceWrite(config.events + i), bareWrite()]);
    });
    const ended = Date.now();
    const of = (variant: Variant) =>
      outcome(receipts[variant], expected(sideBySideEvents), sideBySideEvents, write, ended, restamps[variant]);
    sideBySide = { service: await of('service'), bare: await of('bare') };
    log(
      `side by side, ${sideBySideEvents} events each: service p50 ${fixed(sideBySide.service.p50, 0)} ms, p99 ${fixed(sideBySide.service.p99, 0)} ms; bare p50 ${fixed(sideBySide.bare.p50, 0)} ms, p99 ${fixed(sideBySide.bare.p99, 0)} ms; p99 service / bare ${fixed(sideBySide.service.p99 / sideBySide.bare.p99, 3)}`,
    );
  }

  for (const variant of ['service', 'bare'] as const) {
    receipts[variant].length = 0;
    let next = 0;
    const from = performance.now();
    let burstFailures = 0;
    await Promise.all(
      Array.from({ length: config.burstWriters }, async () => {
        while (next < config.burst) await writers[variant](next++).catch(() => void burstFailures++);
      }),
    );
    phases.burst[variant] = await outcome(
      receipts[variant],
      expected(config.burst),
      config.burst,
      { failures: burstFailures, seconds: (performance.now() - from) / 1000 },
      Date.now(),
      restamps[variant],
    );
    log(`${variant}: done`);
  }
  const rows = await withClient(
    stack.databaseUrl,
    async (c) =>
      (
        await c.query<{ status: string; n: string }>(
          'SELECT status, count(*) AS n FROM webhook_deliveries WHERE installation_id = $1 GROUP BY status',
          [site.id],
        )
      ).rows,
  );
  log(
    `service: delivery rows by status: ${rows.map((r) => `${r.status} ${r.n}`).join(', ')} (of ${expected(perRound * config.rounds + sideBySideEvents + config.burst)})`,
  );

  // the target's figure: the median of the rounds' ratios (a round's p99 is its slowest 1 %, a few moments of the machine)
  const ratios = rounds.service.map((r, i) => r.p99 / rounds.bare[i]!.p99);
  const ratio = median(ratios);
  const whole = [...Object.values(phases), ...(sideBySide ? [sideBySide] : [])].every((phase) =>
    Object.values(phase).every((r) => r.lost === 0 && r.doubled === 0 && r.writeFailures === 0),
  );
  log('');
  log(
    align(
      [
        'commit to receipt',
        'events',
        'write failures',
        'deliveries',
        'lost',
        'doubled',
        'p50 ms',
        'p99 ms',
        'max ms',
        'events/s',
        'write s',
        'last delivery after last write s',
      ],
      (['paced', 'burst'] as const).flatMap((phase) =>
        (['service', 'bare'] as const).map((v) => {
          const r = phases[phase][v];
          return [
            `${phase}: ${v}`,
            String(r.events),
            String(r.writeFailures),
            String(r.received),
            String(r.lost),
            String(r.doubled),
            fixed(r.p50, 0),
            fixed(r.p99, 0),
            fixed(r.max, 0),
            fixed(r.eventsPerSecond, 1),
            fixed(r.writeSeconds, 1),
            fixed(r.tailSeconds, 1),
          ];
        }),
      ),
    ),
  );
  log('');
  log(
    `paced p99 service / bare, the median of ${config.rounds} rounds (${ratios.map((r) => fixed(r, 2)).join(', ')}): ${fixed(ratio, 3)} (target at most ${TARGET_RATIO}): ${ratio <= TARGET_RATIO ? 'met' : 'MISSED'}`,
  );
  log(
    `paced p99 service / bare over every round's deliveries together: ${fixed(phases.paced.service.p99 / phases.paced.bare.p99, 3)}`,
  );
  log(
    `burst events/s service / bare: ${fixed(phases.burst.service.eventsPerSecond / phases.burst.bare.eventsPerSecond, 3)}`,
  );
  log(`nothing lost or doubled: ${whole ? 'met' : 'MISSED'}`);
  const file = await writeResults({ config, host, phases, sideBySide, rounds, ratios, ratio, whole }, 'webhooks');
  log(`results: ${file}`);
  if (!whole) process.exitCode = 1;
}

await runBench(main);
