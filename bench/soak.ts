// `npm run bench:soak`: 60 s of mixed traffic at a steady rate, with the cron and the queue busy,
// on 127.0.0.1 only (issue 16's reliability suite).
//
//   1. a throwaway local stack, one installation (bench/seed.ts) with an inbox and a customer;
//   2. the service, as a deploy bundles it, in workerd through Miniflare (bench/workers.ts);
//   3. BENCH_SOAK_RATE requests a second (default 40) for BENCH_SOAK_SECONDS (60), each started on
//      its tick whatever the others do (a steady offered rate, not a closed loop): 55 % ticket
//      lists, 15 % one ticket, 15 % a new ticket, 10 % a reply, 5 % a ticket changed. Every
//      write makes events, the drain runs them through their subscribers (history, SLA clocks,
//      triggers, webhooks, mail out to the stand-in-less local simulation), and the cron is
//      fired every 10 s as Cloudflare would every five minutes;
//      (BENCH_SOAK_WRITES=0: reads only; BENCH_SOAK_MAIL=0: no mail out, replies as notes;
//      BENCH_SOAK_EVENTS=0: no events written, so no drain; BENCH_SOAK_IDLE=30: memory read again
//      after 30 s idle)
//   4. per 10-second slice: requests, errors (non-2xx or failed), p50 and p99, and workerd's
//      resident set; the isolate's live heap before the load and after it and the drain
//      (bench/isolate-heap.ts: a full collection, then the heap's size; BENCH_SOAK_HEAP_EVERY_SLICE=1
//      reads it at the end of each slice too, pausing the isolate); the checks: no errors, flat
//      memory (the live heap after within 10 % or 2 MiB of before), the cron ran, and the events
//      all drained after.
import { workerdMemoryMiB } from './cpu';
import { quietWranglerEnv } from '../scripts/worker-vars';
import { startLocalStack } from '../scripts/stack';
import { align, fixed, machine, percentile, withClient, writeResults } from './report';
import { seed } from './seed';
import { freePort, isolateHeap } from './isolate-heap';
import { serviceBundle, startService } from './workers';
import { log, runBench, setting, started, stops } from './lifecycle';

const config = {
  rate: setting('BENCH_SOAK_RATE', 40, true),
  seconds: setting('BENCH_SOAK_SECONDS', 60, true),
  /** 0: reads only (lists and gets), to tell what writes and their events add to memory */
  writes: setting('BENCH_SOAK_WRITES', 1),
  /** 0: no mail out (notes for replies, new tickets without notifyCustomer), to tell what mail adds */
  mail: setting('BENCH_SOAK_MAIL', 1),
  /** 0: the Worker writes no events (`WRITE_EVENTS=off`): no drain, to tell what the events add */
  events: setting('BENCH_SOAK_EVENTS', 1),
  /** seconds left idle after the load, memory read again at the end */
  idleSeconds: setting('BENCH_SOAK_IDLE', 0),
  /** 1: the isolate's live heap read at the end of every slice too (each read pauses the isolate about a second, which the p99 then shows) */
  heapEverySlice: setting('BENCH_SOAK_HEAP_EVERY_SLICE', 0),
};
Object.assign(process.env, quietWranglerEnv);

const SLICE_SECONDS = 10;
const CRON_EVERY_MS = 10_000;

interface Sample {
  at: number;
  kind: string;
  ms: number;
  ok: boolean;
  status: number;
}

async function main(): Promise<void> {
  const host = machine();
  log(
    `machine: ${host.nproc} CPUs (${host.cpu}), ${host.memoryGiB} GiB, node ${host.node}, ${host.workerd}, load average ${host.loadAverageAtStart.join(' ')}`,
  );
  log(`settings: ${config.rate} requests/s for ${config.seconds} s, the cron every ${CRON_EVERY_MS / 1000} s`);
  const stack = await startLocalStack({ purpose: 'test' });
  stops.push(stack.stop);
  const data = await seed(stack.databaseUrl, 100);
  const inspectorPort = await freePort();
  const service = config.events
    ? await startService(stack, { inspectorPort })
    : await serviceBundle().serve(stack, 'service', { WRITE_EVENTS: 'off' }, { inspectorPort });
  stops.push(service.stop);
  const heap = await isolateHeap(inspectorPort, 'helpdesk-api');
  stops.push(async () => heap.close());
  const auth = { authorization: `Bearer ${data.ownerKey}`, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: auth,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, json: text ? (JSON.parse(text) as Record<string, any>) : {} };
  };
  const inbox = (await call('GET', '/v2/inboxes.json')).json.inboxes[0].id as number;
  const tickets: number[] = [];
  for (let i = 0; i < 20; i++) {
    const made = await call('POST', '/v2/tickets.json', {
      ticket: {
        subject: `Soak seed ${i}`,
        inbox,
        customer: { email: `soak${i % 5}@soak.test` },
        message: 'Seed',
        notifyCustomer: false,
      },
    });
    tickets.push(made.json.ticket.id);
  }
  const pick = <T>(items: readonly T[]) => items[Math.floor(Math.random() * items.length)]!;
  let n = 0;
  const mix: Array<{ share: number; kind: string; run: () => Promise<number> }> = [
    {
      share: 0.55,
      kind: 'list',
      run: async () => (await call('GET', '/v2/tickets.json?pageSize=25&includes=customers')).status,
    },
    {
      share: 0.15,
      kind: 'get',
      run: async () => (await call('GET', `/v2/tickets/${pick(tickets)}.json?includes=messages`)).status,
    },
    {
      share: 0.15,
      kind: 'create',
      run: async () => {
        const made = await call('POST', '/v2/tickets.json', {
          ticket: {
            subject: `Soak ${++n}`,
            inbox,
            customer: { email: `soak${n % 50}@soak.test` },
            message: 'Soak',
            notifyCustomer: Boolean(config.mail) && n % 2 === 0,
          },
        });
        if (made.status === 201) tickets.push(made.json.ticket.id);
        return made.status;
      },
    },
    {
      share: 0.1,
      kind: 'reply',
      run: async () =>
        (
          await call('POST', `/v2/tickets/${pick(tickets)}/messages.json`, {
            message: `Reply ${++n}`,
            ...(config.mail ? {} : { threadType: 'note' }),
          })
        ).status,
    },
    {
      share: 0.05,
      kind: 'update',
      run: async () =>
        (
          await call('PATCH', `/v2/tickets/${pick(tickets)}.json`, {
            ticket: { priority: null, subject: `Changed ${++n}` },
          })
        ).status,
    },
  ];
  const choose = () => {
    if (!config.writes) return Math.random() < 0.78 ? mix[0]! : mix[1]!;
    let roll = Math.random();
    for (const entry of mix) if ((roll -= entry.share) <= 0) return entry;
    return mix[0]!;
  };

  const samples: Sample[] = [];
  const heapAtStart = await heap.liveMiB();
  log(`the isolate's live heap before the load: ${fixed(heapAtStart, 2)} MiB`);
  /** the isolate's live heap at the end of each slice, and how long reading it paused the isolate */
  const heaps: Array<{ at: number; mib: number; pauseMs: number }> = [];
  const memory: Array<{ at: number; mib: number }> = [{ at: 0, mib: workerdMemoryMiB() }];
  const crons: Array<{ at: number; status: number }> = [];
  const begin = Date.now();
  const inFlight: Promise<void>[] = [];
  const cronTimer = setInterval(() => {
    const at = Date.now() - begin;
    void fetch(`${service.url}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent('*/5 * * * *')}`).then(
      (r) => crons.push({ at, status: r.status }),
      () => crons.push({ at, status: 0 }),
    );
  }, CRON_EVERY_MS);
  const memoryTimer = setInterval(() => memory.push({ at: Date.now() - begin, mib: workerdMemoryMiB() }), 1000);
  const heapReads: Promise<void>[] = [];
  const heapTimer = setInterval(() => {
    if (!config.heapEverySlice) return;
    const at = Date.now() - begin;
    heapReads.push(heap.liveMiB().then((mib) => void heaps.push({ at, mib, pauseMs: Date.now() - begin - at })));
  }, SLICE_SECONDS * 1000);
  const total = Math.round(config.rate * config.seconds);
  for (let i = 0; i < total; i++) {
    const due = begin + (i * 1000) / config.rate;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const entry = choose();
    const at = Date.now();
    inFlight.push(
      entry.run().then(
        (status) =>
          void samples.push({
            at: at - begin,
            kind: entry.kind,
            ms: Date.now() - at,
            ok: status >= 200 && status < 300,
            status,
          }),
        () => void samples.push({ at: at - begin, kind: entry.kind, ms: Date.now() - at, ok: false, status: 0 }),
      ),
    );
  }
  await Promise.all(inFlight);
  clearInterval(cronTimer);
  clearInterval(memoryTimer);
  clearInterval(heapTimer);
  await Promise.all(heapReads);
  memory.push({ at: Date.now() - begin, mib: workerdMemoryMiB() });

  if (config.idleSeconds > 0) {
    await new Promise((resolve) => setTimeout(resolve, config.idleSeconds * 1000));
    log(`after ${config.idleSeconds} s idle: workerd ${fixed(workerdMemoryMiB(), 1)} MiB`);
  }
  // the queue catches up: every event of the run drained
  let undrained = -1;
  for (let tries = 0; tries < 60; tries++) {
    undrained = await withClient(stack.databaseUrl, async (client) =>
      Number((await client.query('SELECT count(*) AS n FROM events WHERE dispatched_at IS NULL')).rows[0].n),
    );
    if (undrained === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const heapAfter = await heap.liveMiB();
  log(`the isolate's live heap after the run and the drain: ${fixed(heapAfter, 2)} MiB`);

  const slices = Array.from({ length: Math.ceil(config.seconds / SLICE_SECONDS) }, (_, index) => {
    const from = index * SLICE_SECONDS * 1000;
    const to = from + SLICE_SECONDS * 1000;
    const inSlice = samples.filter((s) => s.at >= from && s.at < to);
    const sorted = inSlice.map((s) => s.ms).sort((a, b) => a - b);
    const mem = memory.filter((m) => m.at >= from && m.at < to).map((m) => m.mib);
    const read = heaps.find((h) => h.at >= to - 1000 && h.at < to + 1000);
    return {
      slice: `${from / 1000}-${to / 1000} s`,
      requests: inSlice.length,
      errors: inSlice.filter((s) => !s.ok).length,
      p50: sorted.length ? percentile(sorted, 50) : 0,
      p99: sorted.length ? percentile(sorted, 99) : 0,
      memoryMiB: mem.length ? Math.max(...mem) : 0,
      heapMiB: read?.mib ?? Number.NaN,
      heapPauseMs: read?.pauseMs ?? Number.NaN,
    };
  });
  log('');
  log(
    align(
      [
        'slice',
        'requests',
        'errors',
        'p50 ms',
        'p99 ms',
        'live heap MiB (at its end)',
        'heap read ms',
        'workerd RSS MiB',
      ],
      slices.map((s) => [
        s.slice,
        String(s.requests),
        String(s.errors),
        fixed(s.p50, 1),
        fixed(s.p99, 1),
        fixed(s.heapMiB, 2),
        fixed(s.heapPauseMs, 0),
        fixed(s.memoryMiB, 1),
      ]),
    ),
  );
  // the issue asks for latency per minute: the same samples by minute
  const minutes = Array.from({ length: Math.ceil(config.seconds / 60) }, (_, index) => {
    const inMinute = samples.filter((s) => s.at >= index * 60_000 && s.at < (index + 1) * 60_000);
    const sorted = inMinute.map((s) => s.ms).sort((a, b) => a - b);
    return {
      minute: index + 1,
      requests: inMinute.length,
      errors: inMinute.filter((s) => !s.ok).length,
      p50: sorted.length ? percentile(sorted, 50) : 0,
      p99: sorted.length ? percentile(sorted, 99) : 0,
    };
  });
  log('');
  log(
    align(
      ['minute', 'requests', 'errors', 'p50 ms', 'p99 ms'],
      minutes.map((m) => [String(m.minute), String(m.requests), String(m.errors), fixed(m.p50, 1), fixed(m.p99, 1)]),
    ),
  );
  const byKind = Object.fromEntries(
    mix.map(({ kind }) => {
      const sorted = samples
        .filter((s) => s.kind === kind)
        .map((s) => s.ms)
        .sort((a, b) => a - b);
      return [kind, { requests: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) }];
    }),
  );
  log('');
  log(
    align(
      ['kind', 'requests', 'p50 ms', 'p99 ms'],
      Object.entries(byKind).map(([kind, k]) => [kind, String(k.requests), fixed(k.p50, 1), fixed(k.p99, 1)]),
    ),
  );
  const errors = samples.filter((s) => !s.ok);
  const statuses = errors.reduce<Record<string, number>>(
    (all, s) => ({ ...all, [s.status]: (all[s.status] ?? 0) + 1 }),
    {},
  );
  // before the load the isolate is warm (the seeding's requests compiled its code and filled its pools): from there its live heap must not grow
  const grown = heapAfter - heapAtStart;
  const checks = [
    {
      name: 'no errors',
      pass: errors.length === 0,
      detail: `${errors.length} of ${samples.length} (${JSON.stringify(statuses)})`,
    },
    {
      name: "flat memory (the isolate's live heap after the run and the drain within 10 % or 2 MiB of its size before the load)",
      pass: grown <= Math.max(2, heapAtStart * 0.1),
      detail: `${fixed(heapAtStart, 2)} MiB before, ${fixed(heapAfter, 2)} MiB after (workerd's resident set ${fixed(slices[0]!.memoryMiB, 1)} then ${fixed(slices.at(-1)!.memoryMiB, 1)} MiB, which grows under Miniflare whatever the Worker does)`,
    },
    {
      name: 'the cron ran each time',
      pass: crons.length > 0 && crons.every((c) => c.status === 200),
      detail: `${crons.length} runs, statuses ${[...new Set(crons.map((c) => c.status))].join(', ')}`,
    },
    { name: 'every event drained after', pass: undrained === 0, detail: `${undrained} left` },
  ];
  log('');
  for (const check of checks) log(`  ${check.pass ? 'PASS' : 'FAIL'}  ${check.name}: ${check.detail}`);
  const file = await writeResults(
    {
      startedAt: new Date(started).toISOString(),
      machine: host,
      config,
      slices,
      minutes,
      byKind,
      crons,
      memory,
      heap: { atStart: heapAtStart, reads: heaps, after: heapAfter },
      checks,
    },
    'soak',
  );
  log(`\nraw results: ${file}`);
  if (checks.some((check) => !check.pass)) process.exitCode = 1;
}

await runBench(main);
