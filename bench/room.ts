// `npm run bench:room`: the room benchmark of issue 5 ("Speed"), in one run, on 127.0.0.1 only.
//
//   1. a throwaway local stack, one installation (createInstallation, scripts/seed.ts) and 48 more
//      agents with their own API keys (addUser), 49 agents in all;
//   2. the baseline: a bare echo Durable Object (bench/room-echo-worker.ts, its own Miniflare),
//      each frame sent as it is to every socket of the room; no parsing, no storage;
//   3. the service Worker exactly as the tests run it (startWorker, scripts/worker-under-test.ts):
//      a conversation created with POST /v2/conversations.json (an agent's key); its contact and
//      the 49 agents join its room (GET /v2/rooms/{token}/socket, agents with
//      `Authorization: Bearer <key>`); persistence on: the room stores each message before
//      broadcasting it and its alarm delivers them to Postgres meanwhile;
//   4. the same load on both (bench/room-load.ts), in alternating rounds (echo, room, echo, room):
//      a fixed total rate, round robin over the clients, warm-up then measured window; latency
//      from send to receipt at every other client (p50, p99 over all receipts), receipts/s and
//      sends/s, CPU by process; after each room round it waits until conversation_messages holds
//      every message sent so far (proof the room persisted and delivered them);
//   5. the rounds pooled, the ratios room / echo and the target check, the raw results in
//      bench/results/room-<time>.json and room-latest.json, and everything it started stopped.
//
// Settings (environment): BENCH_ROOM_CLIENTS=50 BENCH_ROOM_RATE=100 (messages a second, all
// clients together) BENCH_ROOM_ROUNDS=2 BENCH_ROOM_WARMUP=2 BENCH_ROOM_DURATION=10 (seconds a
// round) BENCH_ROOM_DRAIN=10 (seconds to wait for late receipts) BENCH_ROOM_STORE_TIMEOUT=60
// (seconds to wait for Postgres) BENCH_ROOM_DEFLATE=1 (offer permessage-deflate, as browsers do)
// BENCH_ROOM_STORAGE=disk (the rooms' SQLite files on the machine's disk instead of tmpfs).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { addUser, createInstallation } from '../scripts/seed';
import { startLocalStack, type LocalStack } from '../scripts/stack';
import { startWorker } from '../scripts/worker-under-test';
import { quietWranglerEnv } from '../scripts/worker-vars';
import { align, fixed, machine, withClient, writeResults, type Check } from './report';
import { log, runBench, setting, started, stops } from './lifecycle';
import { startEchoRoom } from './room-echo';
import type { CpuUse } from './cpu';
import { percentiles, roomLoad, type RoomLoadJob, type RoomLoadResult, type RoomSocket } from './room-load';

const config = {
  clients: Math.round(setting('BENCH_ROOM_CLIENTS', 50, true)),
  ratePerSecond: setting('BENCH_ROOM_RATE', 100, true),
  rounds: Math.round(setting('BENCH_ROOM_ROUNDS', 2, true)),
  warmupSeconds: setting('BENCH_ROOM_WARMUP', 2, true),
  durationSeconds: setting('BENCH_ROOM_DURATION', 10, true),
  drainSeconds: setting('BENCH_ROOM_DRAIN', 10, true),
  storeTimeoutSeconds: setting('BENCH_ROOM_STORE_TIMEOUT', 60, true),
  /** offer permessage-deflate as browsers do (BENCH_ROOM_DEFLATE=1); off by default, see docs/benchmarks.md */
  deflate: process.env.BENCH_ROOM_DEFLATE === '1',
  /** where workerd keeps the rooms' SQLite files: tmpfs (default) or the machine's disk (BENCH_ROOM_STORAGE=disk); see docs/benchmarks.md */
  storage:
    process.env.BENCH_ROOM_STORAGE === 'disk' || !existsSync('/dev/shm') ? ('disk' as const) : ('tmpfs' as const),
};
if (config.clients < 2) throw new Error('BENCH_ROOM_CLIENTS must be at least 2');
/** The target of issue 5: the room's p99 within this many times the bare echo room's. */
const TARGET_P99_RATIO = 2;
Object.assign(process.env, quietWranglerEnv);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** An installation with `agents` agents, each with its own API key (the seeded agent first). */
async function seedAgents(stack: LocalStack, agents: number) {
  return withClient(stack.databaseUrl, async (client) => {
    const site = await createInstallation(client, `bench-room-${Date.now().toString(36)}`);
    const keys = [site.users.agent.apiKey];
    while (keys.length < agents) keys.push((await addUser(client, site.id, 'agent')).apiKey);
    return { site, keys };
  });
}

const storedCount = (stack: LocalStack, conversationId: number) =>
  withClient(stack.databaseUrl, async (client) => {
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM conversation_messages WHERE conversation_id = $1',
      [conversationId],
    );
    return rows[0]!.n;
  });

/** Polls conversation_messages until it holds `expected` rows of the conversation, or the timeout. */
async function waitForPostgres(stack: LocalStack, conversationId: number, expected: number) {
  const t0 = performance.now();
  const atStart = await storedCount(stack, conversationId);
  let stored = atStart;
  while (stored < expected && performance.now() - t0 < config.storeTimeoutSeconds * 1000) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    stored = await storedCount(stack, conversationId);
  }
  return { atStart, stored, expected, waitedSeconds: Math.round((performance.now() - t0) / 10) / 100 };
}

const job = (label: string, tag: string, sockets: RoomSocket[], joinedFrame?: string): RoomLoadJob => ({
  label,
  tag,
  sockets,
  deflate: config.deflate,
  joinedFrame,
  ratePerSecond: config.ratePerSecond,
  warmupSeconds: config.warmupSeconds,
  durationSeconds: config.durationSeconds,
  drainSeconds: config.drainSeconds,
});

function figuresTable(results: RoomLoadResult[], echo: RoomLoadResult, room: RoomLoadResult): string {
  const head = [
    'target',
    'clients',
    'sends/s',
    'receipts/s',
    'p50 ms',
    'p90 ms',
    'p99 ms',
    'max ms',
    'ack p50',
    'ack p99',
    'missing',
    'errors',
  ];
  const row = (r: RoomLoadResult) => [
    r.label,
    String(r.clients),
    fixed(r.sendsPerSecond),
    fixed(r.receiptsPerSecond, 0),
    fixed(r.latency.p50, 2),
    fixed(r.latency.p90, 2),
    fixed(r.latency.p99, 2),
    fixed(r.latency.max, 1),
    fixed(r.ack.p50, 2),
    fixed(r.ack.p99, 2),
    String(r.missingReceipts),
    String(r.errorFrames + r.unexpectedCloses),
  ];
  const ratio = (a: number, b: number) => fixed(a / b, 2);
  return align(head, [
    ...results.map(row),
    [
      'ratio room / echo',
      '',
      ratio(room.sendsPerSecond, echo.sendsPerSecond),
      ratio(room.receiptsPerSecond, echo.receiptsPerSecond),
      ratio(room.latency.p50, echo.latency.p50),
      ratio(room.latency.p90, echo.latency.p90),
      ratio(room.latency.p99, echo.latency.p99),
      ratio(room.latency.max, echo.latency.max),
      ratio(room.ack.p50, echo.ack.p50),
      ratio(room.ack.p99, echo.ack.p99),
      '',
      '',
    ],
  ]);
}

function cpuTable(results: RoomLoadResult[]): string {
  const groups = ['workerd', 'postgres', 'stand-ins', 'load'] as const;
  const head = [
    'target',
    'workerd',
    'postgres',
    'stand-ins (node)',
    'load (clients)',
    'other',
    'total',
    'steal',
    'workerd ms/msg',
    'postgres ms/msg',
  ];
  const perMessage = (cores: number, rate: number) => fixed((cores / rate) * 1000, 3);
  return align(
    head,
    results.map(({ label, cpu, sendsPerSecond }) => [
      label,
      ...groups.map((g) => fixed(cpu[g], 2)),
      fixed(cpu.other, 2),
      fixed(
        groups.reduce((sum, g) => sum + cpu[g], cpu.other),
        2,
      ),
      fixed(cpu.steal, 2),
      perMessage(cpu.workerd, sendsPerSecond),
      perMessage(cpu.postgres, sendsPerSecond),
    ]),
  );
}

/** The rounds of one target pooled: rates over all measured seconds, percentiles over all receipts. */
function pooled(label: string, results: RoomLoadResult[]): RoomLoadResult {
  const sum = (pick: (r: RoomLoadResult) => number) => results.reduce((total, r) => total + pick(r), 0);
  const seconds = sum((r) => r.sendSeconds);
  const weighted = (pick: (r: RoomLoadResult) => number) =>
    Math.round((sum((r) => pick(r) * r.sendSeconds) / seconds) * 100) / 100;
  const cpu = Object.fromEntries(
    Object.keys(results[0]!.cpu).map((k) => [k, weighted((r) => r.cpu[k as keyof CpuUse])]),
  ) as CpuUse;
  return {
    label,
    clients: results[0]!.clients,
    joinMs: Math.max(...results.map((r) => r.joinMs)),
    extensions: results[0]!.extensions,
    sentTotal: sum((r) => r.sentTotal),
    sent: sum((r) => r.sent),
    sendSeconds: seconds,
    sendsPerSecond: sum((r) => r.sent) / seconds,
    receipts: sum((r) => r.receipts),
    expectedReceipts: sum((r) => r.expectedReceipts),
    receiptsPerSecond: sum((r) => r.receipts) / seconds,
    latency: percentiles(results.flatMap((r) => r.raw.latencies)),
    ack: percentiles(results.flatMap((r) => r.raw.acks)),
    acksTotal: sum((r) => r.acksTotal),
    missingReceipts: sum((r) => r.missingReceipts),
    pacerLate: {
      p99: Math.max(...results.map((r) => r.pacerLate.p99)),
      max: Math.max(...results.map((r) => r.pacerLate.max)),
    },
    errorFrames: sum((r) => r.errorFrames),
    firstErrors: results.flatMap((r) => r.firstErrors).slice(0, 5),
    unexpectedCloses: sum((r) => r.unexpectedCloses),
    raw: { latencies: [], acks: [] },
    cpu,
  };
}

/** Measured windows during which processes outside the benchmark took a noticeable share of the machine. */
const disturbed = (r: RoomLoadResult) => r.cpu.other + r.cpu.steal > 0.2;
const withoutRaw = ({ raw: _raw, ...rest }: RoomLoadResult) => rest;

async function main(): Promise<void> {
  const host = machine();
  log(
    `machine: ${host.nproc} CPUs (${host.cpu}), ${host.memoryGiB} GiB, node ${host.node}, ${host.workerd}, load average ${host.loadAverageAtStart.join(' ')}`,
  );
  log(
    `settings: ${config.clients} clients in one room, ${config.ratePerSecond} messages/s offered in all (round robin), ${config.rounds} rounds of each target alternating, each warm-up ${config.warmupSeconds} s + measured ${config.durationSeconds} s; permessage-deflate ${config.deflate ? 'offered' : 'off'}; Durable Object storage on ${config.storage === 'tmpfs' ? 'tmpfs (/dev/shm)' : 'disk'}`,
  );

  const stack = await startLocalStack({ purpose: 'test' });
  stops.push(stack.stop);
  const agents = config.clients - 1;
  const { site, keys } = await seedAgents(stack, agents);
  log(`local stack up; installation ${site.id} with ${keys.length} agents, each with an API key`);

  if (config.storage === 'tmpfs') {
    // Miniflare keeps Durable Object storage under the temporary directory; on tmpfs a commit
    // costs what it costs workerd, not the virtual disk's flush (docs/benchmarks.md, "Conversation room").
    const dir = await mkdtemp('/dev/shm/bench-room-');
    process.env.TMPDIR = dir;
    stops.push(() => rm(dir, { recursive: true, force: true }));
  }
  log('bundling and starting the bare echo room (workerd, its own Miniflare) ...');
  const echoRoom = await startEchoRoom();
  stops.push(echoRoom.stop);
  const echoSockets: RoomSocket[] = Array.from({ length: config.clients }, () => ({
    url: echoRoom.socketUrl('bench'),
    headers: {},
  }));

  log('bundling and starting the service Worker (workerd, Miniflare) ...');
  const worker = await startWorker(stack, { outdir: path.join(root, '.wrangler', 'bench-build', 'room-service') });
  stops.push(worker.stop);
  const created = await fetch(`${worker.url}/v2/conversations.json`, {
    method: 'POST',
    headers: { authorization: `Bearer ${keys[0]}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      conversation: { contact: { name: 'Bench Visitor', email: 'visitor@bench.test' }, subject: 'room benchmark' },
    }),
  });
  const createdBody = (await created.json()) as { conversation?: { id: number; token: string; socketUrl: string } };
  if (created.status !== 201 || !createdBody.conversation)
    throw new Error(
      `POST /v2/conversations.json answered ${created.status}: ${JSON.stringify(createdBody).slice(0, 500)}`,
    );
  const conversation = createdBody.conversation;
  const roomSockets: RoomSocket[] = [
    { url: conversation.socketUrl, headers: {} },
    ...keys.map((key) => ({ url: conversation.socketUrl, headers: { authorization: `Bearer ${key}` } })),
  ];
  log(
    `conversation ${conversation.id}: its contact and ${agents} agents join ${conversation.socketUrl.replace(/\d{24}/, '{token}')} each round`,
  );

  // Alternating rounds, both Workers up throughout (an idle room costs nothing): a disturbance
  // from outside falls on one round, not on one target.
  const rounds: Array<{
    echo: RoomLoadResult;
    room: RoomLoadResult;
    postgres: Awaited<ReturnType<typeof waitForPostgres>> & { wsConnections: number; httpQueries: number };
  }> = [];
  let sentToRoom = 0;
  for (let round = 1; round <= config.rounds; round++) {
    const echo = await roomLoad(job(`echo, round ${round}`, `e${round}`, echoSockets));
    log(
      `round ${round}: echo joined in ${echo.joinMs} ms; ${echo.sentTotal} messages sent, p50 ${fixed(echo.latency.p50, 2)} ms, p99 ${fixed(echo.latency.p99, 2)} ms`,
    );
    const before = stack.stats();
    const room = await roomLoad(job(`room, round ${round}`, `r${round}`, roomSockets, 'welcome'));
    sentToRoom += room.sentTotal;
    log(
      `round ${round}: room joined in ${room.joinMs} ms; ${room.sentTotal} messages sent, ${room.acksTotal} acknowledged, p50 ${fixed(room.latency.p50, 2)} ms, p99 ${fixed(room.latency.p99, 2)} ms`,
    );
    // The next round starts once the room has delivered everything: no delivery work left over.
    const postgres = await waitForPostgres(stack, conversation.id, sentToRoom);
    const after = stack.stats();
    // Joins read over the driver's HTTP mode; each delivery is one webhook call storing its batch in one HTTP query.
    const database = {
      wsConnections: after.wsProxy.connections - before.wsProxy.connections,
      httpQueries: after.sqlHttp.requests - before.sqlHttp.requests,
    };
    log(
      `round ${round}: conversation_messages ${postgres.atStart} of ${sentToRoom} rows when the clients had closed, ${postgres.stored} after ${postgres.waitedSeconds} s more; ` +
        `${database.httpQueries} SQL-over-HTTP queries (joins and deliveries), ${database.wsConnections} database WebSocket connections`,
    );
    rounds.push({ echo, room, postgres: { ...postgres, ...database } });
  }
  const echo = pooled(
    'bare echo room',
    rounds.map((r) => r.echo),
  );
  const room = pooled(
    'conversation room (persisted)',
    rounds.map((r) => r.room),
  );
  const stored = rounds.at(-1)!.postgres.stored;

  log('');
  log(figuresTable([...rounds.flatMap((r) => [r.echo, r.room]), echo, room], echo, room));
  log('');
  log(
    "CPU cores used during the measured windows, by process (stand-ins = the bench process: the local stack's SQL-over-HTTP and WebSocket proxies):",
  );
  log(cpuTable([...rounds.flatMap((r) => [r.echo, r.room]), echo, room]));
  const flagged = rounds.flatMap((r) => [r.echo, r.room]).filter(disturbed);
  log(
    flagged.length
      ? `DISTURBED (other processes or steal over 0.2 cores): ${flagged.map((r) => r.label).join(', ')}`
      : 'no measured window was disturbed (other processes and steal under 0.2 cores)',
  );
  log(
    `WebSocket extensions agreed: echo ${echo.extensions}, room ${room.extensions}; pacer late p99/max: echo ${fixed(echo.pacerLate.p99, 2)}/${fixed(echo.pacerLate.max, 2)} ms, room ${fixed(room.pacerLate.p99, 2)}/${fixed(room.pacerLate.max, 2)} ms`,
  );
  log('');

  const clean = (r: RoomLoadResult) => r.missingReceipts === 0 && r.errorFrames === 0 && r.unexpectedCloses === 0;
  const verified = [
    {
      name: 'echo room: every copy of every message received, no errors',
      pass: clean(echo),
      detail: `${echo.missingReceipts} missing, ${echo.errorFrames} error frames, ${echo.unexpectedCloses} closes`,
    },
    {
      name: 'conversation room: every copy of every message received, no errors',
      pass: clean(room),
      detail: `${room.missingReceipts} missing, ${room.errorFrames} error frames ${room.firstErrors.join(' ')}, ${room.unexpectedCloses} closes`,
    },
    {
      name: 'conversation room: every message acknowledged to its sender',
      pass: room.acksTotal === room.sentTotal,
      detail: `${room.acksTotal} of ${room.sentTotal}`,
    },
    {
      name: 'persistence on: conversation_messages holds every message sent',
      pass: stored === sentToRoom,
      detail: `${stored} rows for conversation ${conversation.id}, ${sentToRoom} sent (warm-ups included)`,
    },
  ];
  log('correctness:');
  for (const v of verified) log(`  ${v.pass ? 'OK  ' : 'FAIL'}  ${v.name}: ${v.detail}`);

  const p99Ratio = room.latency.p99 / echo.latency.p99;
  const targetChecks: Check[] = [
    {
      name: `room p99 <= ${TARGET_P99_RATIO} x bare echo room p99, persistence on`,
      pass: p99Ratio <= TARGET_P99_RATIO,
      detail: `${fixed(room.latency.p99, 2)} ms vs ${TARGET_P99_RATIO} x ${fixed(echo.latency.p99, 2)} = ${fixed(TARGET_P99_RATIO * echo.latency.p99, 2)} ms (ratio ${fixed(p99Ratio, 2)})`,
    },
  ];
  log('target check (all rounds pooled):');
  for (const check of targetChecks) log(`  ${check.pass ? 'PASS' : 'MISS'}  ${check.name}: ${check.detail}`);

  const file = await writeResults(
    {
      kind: 'room',
      startedAt: new Date(started).toISOString(),
      machine: host,
      config,
      conversationId: conversation.id,
      rounds: rounds.map((r) => ({ echo: withoutRaw(r.echo), room: withoutRaw(r.room), postgres: r.postgres })),
      echo: withoutRaw(echo),
      room: withoutRaw(room),
      ratios: {
        p50: room.latency.p50 / echo.latency.p50,
        p99: p99Ratio,
        receiptsPerSecond: room.receiptsPerSecond / echo.receiptsPerSecond,
        sendsPerSecond: room.sendsPerSecond / echo.sendsPerSecond,
      },
      disturbed: flagged.map((r) => r.label),
      checks: targetChecks,
      verified,
    },
    'room',
  );
  log(`\nraw results: ${file}`);
  if (verified.some((v) => !v.pass)) process.exitCode = 1;
}

await runBench(main);
