// `npm run bench:far`: what the database's distance costs each kind of request, one request at a
// time, near and far in one run, on 127.0.0.1 only (issue 33); and what placing the Worker next to
// the database instead would cost the same requests, from a client that far away ("placed").
//
//   1. a throwaway local stack with the database near, the service bundled as a deploy would and
//      served by workerd through Miniflare (its log lines read: each request's `dbRoundTrips`, by
//      the request id sent, and every error line), and a webhook receiver here that answers 200;
//   2. three installations: the main one (tickets to read, reply to, update...; its first inbox
//      receives mail), one with an enabled trigger whose condition a subject change meets, one with
//      a webhook endpoint for every event pointed at the receiver; every request's target (fresh
//      tickets, uploaded files, the mails replied to) made beforehand, near, through the API;
//   3. each kind of request BENCH_FAR_REQUESTS times in turn, the first BENCH_FAR_WARMUP not
//      counted: near, each request sent once the previous one's work is over (events dispatched,
//      no backend busy, the stand-ins' counters still), so that what it sent and what it left
//      behind are its own; then, the stand-ins restarted on the same ports BENCH_FAR_RTT_MS away
//      (`stack.setDatabaseRtt`), far, the requests back to back as a client sends them (the work
//      each leaves behind takes seconds far away; BENCH_FAR_ISOLATE=1 waits for it, and the run
//      then takes most of an hour), and at the end how long what they left took to finish;
//      between the two, "placed": the database near again, and the client BENCH_FAR_RTT_MS away
//      from the Worker instead, through a delaying proxy of the bench in front of it
//      (bench/client-distance.ts: a new connection one round trip late, then each request and
//      each answer half the round trip, in order; connections kept alive, as Node's fetch does, so
//      a connection's set-up is paid once and counted), each request sent once the previous one's
//      work is over as near; the mode a Worker placed by Smart Placement or a placement region next
//      to the database shows a distant client (docs/connection-strategy.md, "Deploying near the
//      database");
//   4. per kind: p50 and p95 near, far and placed, the round trips the client waited for,
//      (p50 far - p50 near) / RTT, what each request sent the stand-ins while it ran (HTTP
//      requests, the statements in them, WebSocket connections) and after its answer, the errors
//      (answers that are not 2xx, or not 200 for mail, and the first one's body) and the
//      service's error lines, and the issue's target for it; then the placement table: far and
//      placed in round trips over near, and which of the two answers sooner; results in
//      bench/results/.
//
// Settings (environment): BENCH_FAR_MODES=near,far,placed (the modes to run; they run in the
// order near, placed, far) BENCH_FAR_RTT_MS=150 BENCH_FAR_REQUESTS=10 BENCH_FAR_WARMUP=2
// BENCH_FAR_QUIET_MS=60000 (the longest wait for work left behind) BENCH_FAR_ISOLATE=0
// BENCH_FAR_ONLY=<keys, comma-separated> (get, list, search, reply, note, update, status,
// createExisting, createNew, customer, company, bulk, trigger, webhook, file, mailNew, mailReply).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createInstallation, type SeededInstallation } from '../scripts/seed';
import { startLocalStack, type LocalStack } from '../scripts/stack';
import { startWorker } from '../scripts/worker-under-test';
import { quietWranglerEnv } from '../scripts/worker-vars';
import { startClientDistance } from './client-distance';
import { log, runBench, setting, started, stops } from './lifecycle';
import { align, fixed, machine, percentile, writeResults } from './report';

/** The modes, in the order they run: the database near, the client far from a Worker placed by it, the database far. */
const MODES = ['near', 'placed', 'far'] as const;
type Phase = (typeof MODES)[number];
const modesAsked = (process.env.BENCH_FAR_MODES ?? MODES.join(','))
  .split(',')
  .map((m) => m.trim())
  .filter(Boolean);
for (const mode of modesAsked)
  if (!(MODES as readonly string[]).includes(mode))
    throw new Error(`BENCH_FAR_MODES: "${mode}" is not one of ${MODES.join(', ')}`);
const config = {
  modes: MODES.filter((m) => modesAsked.includes(m)),
  rttMs: setting('BENCH_FAR_RTT_MS', 150, true),
  requests: Math.max(1, Math.round(setting('BENCH_FAR_REQUESTS', 10, true))),
  warmup: Math.round(setting('BENCH_FAR_WARMUP', 2)),
  quietMs: setting('BENCH_FAR_QUIET_MS', 60_000),
  isolate: process.env.BENCH_FAR_ISOLATE === '1',
};
if (!config.modes.length) throw new Error('BENCH_FAR_MODES names no mode');
if (config.warmup >= config.requests) throw new Error('BENCH_FAR_WARMUP must be less than BENCH_FAR_REQUESTS');
Object.assign(process.env, quietWranglerEnv);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A target of `rounds` round trips is met up to this much over it: 1 round trip is p50 far <= p50 near + 1.2 x RTT. */
const TOLERANCE = 0.2;
const TOKEN = 'a-signing-token-of-some-length';

/** One request as sent: a path of the service, its method, body and headers; `ok` the status that means done. */
interface Call {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
  ok?: number[];
}
interface Kind {
  key: string;
  label: string;
  /** the issue's target, in round trips waited */
  target: 1 | 2;
  /** the i-th request of a phase (targets made beforehand for every phase) */
  call(phase: Phase, i: number): Call;
}
interface Sent {
  httpRequests: number;
  statements: number;
  batches: number;
  wsConnections: number;
}
/** The work a request left behind (events drained, subscribers, deliveries): until when after its answer, and what it sent. */
type Afterwork = Sent & { ms: number };
interface Sample extends Sent {
  requestId: string;
  ms: number;
  status: number;
  ok: boolean;
  /** measured when the next request waited for it */
  afterwork?: Afterwork;
}
interface PhaseResult {
  measured: number;
  errors: number;
  firstError?: string;
  p50: number;
  p95: number;
  /** per measured request: what it sent the stand-ins while it ran */
  httpRequests: number;
  statements: number;
  batches: number;
  wsConnections: number;
  /** per measured request: its round trips as the service counted them (its log line's `dbRoundTrips`; the mail handler logs none) */
  serviceCounted: number | null;
  /** the work each request left behind, when measured (near and placed; far with BENCH_FAR_ISOLATE=1): the p50 of how long after the answer it ran, and what it sent, per request */
  afterwork: Afterwork | null;

  /** requests whose work was not seen to end within BENCH_FAR_QUIET_MS */
  notQuiet: number;
  samples: Sample[];
}

/** A receiver that answers every POST 200 at once and counts them. */
async function startReceiver(): Promise<{ url: string; received(): number; stop(): Promise<void> }> {
  let received = 0;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received++;
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received: () => received,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A raw message as Email Routing hands it over, the sender's domain authenticated. */
function rawMail(mail: {
  from: string;
  to: string;
  subject: string;
  messageId: string;
  inReplyTo?: string;
  text: string;
}): string {
  const domain = mail.from.slice(mail.from.indexOf('@') + 1);
  return [
    `ARC-Authentication-Results: i=1; mx.cloudflare.net; dkim=pass header.d=${domain}; dmarc=pass header.from=${domain}`,
    'Received: from mx.far.bench ([198.51.100.7]) by mail.localhost; Mon, 23 Nov 2026 10:00:00 +0000',
    `From: ${mail.from}`,
    `To: ${mail.to}`,
    `Subject: ${mail.subject}`,
    `Message-ID: <${mail.messageId}>`,
    ...(mail.inReplyTo ? [`In-Reply-To: <${mail.inReplyTo}>`, `References: <${mail.inReplyTo}>`] : []),
    'Date: Mon, 23 Nov 2026 10:00:00 +0000',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    mail.text,
    '',
  ].join('\r\n');
}

async function main(): Promise<void> {
  const host = machine();
  log(
    `machine: ${host.nproc} CPUs (${host.cpu}), ${host.memoryGiB} GiB, node ${host.node}, ${host.workerd}, load average ${host.loadAverageAtStart.join(' ')}`,
  );
  log(
    `settings: ${config.requests} requests a kind and phase (the first ${config.warmup} not counted); modes ${config.modes.join(', ')}, far and placed ${config.rttMs} ms away`,
  );
  const stack = await startLocalStack({ purpose: 'test', rttMs: 0 });
  stops.push(stack.stop);
  // The service's log lines: a request's round trips as it counted them (by the request id we send),
  // and every error and warning it logged, the work after the answers included.
  const counted = new Map<string, number>();
  const loggedErrors: Record<Phase, string[]> = { near: [], placed: [], far: [] };
  let phaseNow: Phase = config.modes[0]!;
  const service = await startWorker(stack, {
    outdir: path.join(root, '.wrangler', 'bench-build', 'far'),
    onLogLine(line, stream) {
      let entry: { level?: string; message?: string; requestId?: string; dbRoundTrips?: number } | undefined;
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        // not the Worker's JSON: what workerd itself says on stderr (an uncaught exception) is kept as an error
        if (stream === 'stderr' && line.trim()) loggedErrors[phaseNow].push(line.slice(0, 2000));
        return;
      }
      if (entry?.message === 'request' && entry.requestId && typeof entry.dbRoundTrips === 'number')
        counted.set(entry.requestId, entry.dbRoundTrips);
      if (entry?.level === 'error' || entry?.level === 'warn') loggedErrors[phaseNow].push(line.slice(0, 2000));
    },
  });
  stops.push(service.stop);
  const receiver = await startReceiver();
  stops.push(receiver.stop);
  const watcher = new pg.Client({ connectionString: stack.databaseUrl });
  await watcher.connect();
  stops.push(() => watcher.end());

  const sites = {} as Record<'main' | 'triggered' | 'hooked', SeededInstallation>;
  for (const name of ['main', 'triggered', 'hooked'] as const)
    sites[name] = await createInstallation(watcher, `far-${name}-${started.toString(36)}`);
  await watcher.query(
    "UPDATE inboxes SET local_part = 'support' WHERE id = (SELECT min(id) FROM inboxes WHERE installation_id = $1)",
    [sites.main.id],
  );
  const mailTo = `support@${sites.main.siteName}.mail.localhost`;

  /** A setup call: its JSON answer, or the run stops. */
  const api = async (site: SeededInstallation, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${site.users.owner.apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300)
      throw new Error(`setup: ${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as Record<string, any>;
  };
  /** `count` results of `make`, 8 at a time. */
  const many = async <T>(count: number, make: (i: number) => Promise<T>): Promise<T[]> => {
    const made: T[] = new Array(count);
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < count) {
          const i = next++;
          made[i] = await make(i);
        }
      }),
    );
    return made;
  };
  const each = config.modes.length * config.requests; // a target a request, for every phase
  const inboxOf = async (site: SeededInstallation) =>
    (await api(site, 'GET', '/v2/inboxes.json')).inboxes[0].id as number;
  const inbox = {
    main: await inboxOf(sites.main),
    triggered: await inboxOf(sites.triggered),
    hooked: await inboxOf(sites.hooked),
  };
  const [high, low] = (
    (await api(sites.main, 'GET', '/v2/ticketpriorities.json')).ticketpriorities as { id: number }[]
  ).map((p) => p.id);
  const customer = (
    await api(sites.main, 'POST', '/v2/customers.json', {
      customer: { email: 'regular@far.bench', firstName: 'Regular' },
    })
  ).customer.id as number;
  const newTickets = (site: 'main' | 'triggered' | 'hooked', count: number, tag: string) =>
    many(
      count,
      async (i) =>
        (
          await api(sites[site], 'POST', '/v2/tickets.json', {
            ticket: {
              subject: `Parcel ${tag} ${i} has not arrived`,
              inbox: inbox[site],
              customer: { email: `${tag}${i % 20}@far.bench` },
              message: 'Hello, where is my parcel?',
            },
          })
        ).ticket.id as number,
    );
  log('making the targets (near) ...');
  const pools = {
    reply: await newTickets('main', each, 'reply'),
    note: await newTickets('main', each, 'note'),
    update: await newTickets('main', each, 'update'),
    status: await newTickets('main', each, 'status'),
    bulk: await newTickets('main', 5, 'bulk'),
    triggered: await newTickets('triggered', each, 'trigger'),
    hooked: await newTickets('hooked', each, 'hook'),
  };
  const triggerPriority = (
    (await api(sites.triggered, 'GET', '/v2/ticketpriorities.json')).ticketpriorities as { id: number }[]
  )[0]!.id;
  await api(sites.triggered, 'POST', '/v2/triggers.json', {
    trigger: {
      name: 'Escalations',
      displayOrder: 1,
      conditions: [{ field: 11, operator: 1, value: 'escalate' }],
      triggeractions: [{ type: 2, value: String(triggerPriority) }],
    },
  });
  await api(sites.hooked, 'POST', '/v2/webhookendpoints.json', {
    webhookendpoint: { url: receiver.url, token: TOKEN },
  });
  const hookPriorities = (
    (await api(sites.hooked, 'GET', '/v2/ticketpriorities.json')).ticketpriorities as { id: number }[]
  ).map((p) => p.id);
  const files = await many(each, async (i) => {
    const ref = await api(sites.main, 'POST', '/v2/files/ref.json', {
      params: { 'Content-Type': '', bucket: '', key: '', policy: '', success_action_status: '' },
      file: { type: 'attachment', filename: `receipt-${i}.txt`, mimeType: 'text/plain' },
    });
    const form = new FormData();
    for (const [field, value] of Object.entries(ref.params as Record<string, string>))
      if (value !== '') form.append(field, value);
    form.append('file', new Blob([`receipt ${i}\n`.repeat(50)]), `receipt-${i}.txt`);
    const uploaded = await fetch(ref.url as string, { method: 'POST', body: form });
    if (uploaded.status !== 201)
      throw new Error(`setup: the upload answered ${uploaded.status}: ${(await uploaded.text()).slice(0, 500)}`);
    return ref.file.id as number;
  });
  const tag = started.toString(36);
  const mail = (from: string, subject: string, messageId: string, inReplyTo?: string): Call => ({
    method: 'POST',
    path: `/cdn-cgi/handler/email?${new URLSearchParams({ from, to: mailTo })}`,
    ok: [200],
    body: rawMail({
      from,
      to: mailTo,
      subject,
      messageId,
      inReplyTo,
      text: 'Hello team, the order we placed last week has not arrived yet.\r\n'.repeat(8),
    }),
  });
  const originals = await many(each, async (i) => {
    const sent = mail(`thread${i}@far-mail.bench`, `Order ${i} has not arrived`, `original.${i}.${tag}@far-mail.bench`);
    const response = await fetch(`${service.url}${sent.path}`, { method: 'POST', body: sent.body });
    if (response.status !== 200)
      throw new Error(`setup: an original mail answered ${response.status}: ${(await response.text()).slice(0, 500)}`);
    return `original.${i}.${tag}@far-mail.bench`;
  });

  const at = (phase: Phase, i: number) => config.modes.indexOf(phase) * config.requests + i;
  const json = (method: string, path: string, body: unknown): Call => ({
    method,
    path,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  const kinds: Kind[] = [
    {
      key: 'get',
      label: 'GET /v2/tickets/{id}.json',
      target: 1,
      call: () => ({ method: 'GET', path: `/v2/tickets/${pools.reply[0]}.json` }),
    },
    {
      key: 'list',
      label: 'list, 25 tickets, includes=all',
      target: 1,
      call: () => ({ method: 'GET', path: '/v2/tickets.json?pageSize=25&includes=all' }),
    },
    {
      key: 'search',
      label: 'search (GET /v2/search/tickets.json)',
      target: 1,
      call: () => ({ method: 'GET', path: '/v2/search/tickets.json?search=parcel&pageSize=25' }),
    },
    {
      key: 'reply',
      label: 'reply (POST /v2/tickets/{id}/messages.json)',
      target: 1,
      call: (p, i) =>
        json('POST', `/v2/tickets/${pools.reply[at(p, i)]}/messages.json`, { message: `On its way: reply ${i}` }),
    },
    {
      key: 'note',
      label: 'note',
      target: 1,
      call: (p, i) =>
        json('POST', `/v2/tickets/${pools.note[at(p, i)]}/messages.json`, {
          message: `Checked the carrier: note ${i}`,
          threadType: 'note',
        }),
    },
    {
      key: 'update',
      label: 'update a ticket (PATCH)',
      target: 1,
      call: (p, i) =>
        json('PATCH', `/v2/tickets/${pools.update[at(p, i)]}.json`, {
          ticket: { priority: { id: high }, subject: `Parcel ${i}: late` },
        }),
    },
    {
      key: 'status',
      label: 'status change (PATCH, solved)',
      target: 1,
      call: (p, i) => json('PATCH', `/v2/tickets/${pools.status[at(p, i)]}.json`, { ticket: { status: { id: 5 } } }),
    },
    {
      key: 'createExisting',
      label: 'create a ticket, existing customer',
      target: 1,
      call: (p, i) =>
        json('POST', '/v2/tickets.json', {
          ticket: {
            subject: `Parcel ${p} ${i}`,
            inbox: inbox.main,
            customer: { id: customer },
            message: 'Where is it?',
          },
        }),
    },
    {
      key: 'createNew',
      label: 'create a ticket, new customer',
      target: 1,
      call: (p, i) =>
        json('POST', '/v2/tickets.json', {
          ticket: {
            subject: `Parcel ${p} ${i}`,
            inbox: inbox.main,
            customer: { email: `new-${p}-${i}-${tag}@far.bench` },
            message: 'Where is it?',
          },
        }),
    },
    {
      key: 'customer',
      label: 'create a customer',
      target: 1,
      call: (p, i) =>
        json('POST', '/v2/customers.json', {
          customer: { email: `customer-${p}-${i}-${tag}@far.bench`, firstName: 'Far', lastName: String(i) },
        }),
    },
    {
      key: 'company',
      label: 'create a company',
      target: 1,
      call: (p, i) =>
        json('POST', '/v2/companies.json', {
          company: { name: `Far ${p} ${i} ${tag}`, domains: [{ name: `${p}${i}-${tag}.far.bench` }] },
        }),
    },
    {
      key: 'bulk',
      label: 'bulk update, 5 tickets (PATCH /v2/tickets/update.json)',
      target: 1,
      call: (_p, i) =>
        json('PATCH', '/v2/tickets/update.json', {
          ticket: { priority: { id: i % 2 ? high : low } },
          filter_args: { filter: { id: { $in: pools.bulk } } },
        }),
    },
    {
      key: 'trigger',
      label: 'update meeting an enabled trigger',
      target: 2,
      call: (p, i) =>
        json('PATCH', `/v2/tickets/${pools.triggered[at(p, i)]}.json`, {
          ticket: { subject: `Please escalate parcel ${i}` },
        }),
    },
    {
      key: 'webhook',
      label: 'update with a webhook endpoint enabled',
      target: 2,
      call: (p, i) =>
        json('PATCH', `/v2/tickets/${pools.hooked[at(p, i)]}.json`, {
          ticket: { priority: { id: hookPriorities[i % hookPriorities.length] } },
        }),
    },
    {
      key: 'file',
      label: 'file confirm (PATCH /v2/files/{id}.json)',
      target: 2,
      call: (p, i) => json('PATCH', `/v2/files/${files[at(p, i)]}.json`, { file: {} }),
    },
    {
      key: 'mailNew',
      label: 'inbound mail, new ticket (new customer)',
      target: 2,
      call: (p, i) =>
        mail(`new-${p}-${i}@far-mail.bench`, `Order ${p} ${i} is missing`, `new.${p}.${i}.${tag}@far-mail.bench`),
    },
    {
      key: 'mailReply',
      label: 'inbound mail, threaded reply',
      target: 2,
      call: (p, i) =>
        mail(
          `thread${at(p, i)}@far-mail.bench`,
          `Re: Order ${at(p, i)} has not arrived`,
          `reply.${p}.${i}.${tag}@far-mail.bench`,
          originals[at(p, i)],
        ),
    },
  ];
  const only = process.env.BENCH_FAR_ONLY?.split(',').filter(Boolean);
  const chosen = only ? kinds.filter((k) => only.includes(k.key)) : kinds;

  /**
   * Waits until the work a request left behind is over: every event dispatched, no client backend
   * busy (a transaction open or a statement running), and the stand-ins' counters still for a
   * while (BENCH_FAR_QUIET_MS at most). Answers how long after the call the last of it was seen,
   * and what it sent the stand-ins meanwhile.
   */
  const quiet = async (): Promise<{ quiet: boolean; afterwork: Afterwork }> => {
    const settle = Math.max(50, stack.databaseRttMs + 50);
    const from = performance.now();
    const first = stack.stats();
    let last = first;
    let stillSince = from;
    while (performance.now() - from < config.quietMs) {
      const {
        rows: [row],
      } = await watcher.query<{ pending: number; busy: number }>(`
        SELECT (SELECT count(*)::int FROM events WHERE dispatched_at IS NULL) AS pending,
               (SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                  AND backend_type = 'client backend' AND state IN ('active', 'idle in transaction', 'idle in transaction (aborted)')) AS busy`);
      const now = stack.stats();
      if (JSON.stringify(now) !== JSON.stringify(last) || row!.pending > 0 || row!.busy > 0)
        ((last = now), (stillSince = performance.now()));
      else if (performance.now() - stillSince >= settle) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return {
      quiet: performance.now() - from < config.quietMs,
      afterwork: { ms: stillSince - from, ...sent(first, last) },
    };
  };
  /** What the stand-ins carried between two of their counts. */
  const sent = (before: ReturnType<LocalStack['stats']>, after: ReturnType<LocalStack['stats']>) => ({
    httpRequests: after.sqlHttp.requests - before.sqlHttp.requests,
    statements: after.sqlHttp.statements - before.sqlHttp.statements,
    batches: after.sqlHttp.batches - before.sqlHttp.batches,
    wsConnections: after.wsProxy.connections - before.wsProxy.connections,
  });

  let sentCount = 0;
  /** Sends one request to `base` (the Worker, or the far client's way to it) and notes what it sent the stand-ins until its answer. */
  const send = async (base: string, call: Call): Promise<{ sample: Omit<Sample, 'afterwork'>; body: string }> => {
    const requestId = `far-${++sentCount}`;
    const before = stack.stats();
    const start = performance.now();
    let status = 0;
    let body: string;
    try {
      const response = await fetch(`${base}${call.path}`, {
        method: call.method,
        body: call.body,
        headers: { ...call.headers, 'x-request-id': requestId },
      });
      status = response.status;
      body = await response.text();
    } catch (error) {
      body = `fetch failed: ${String(error)}`;
    }
    const ms = performance.now() - start;
    const after = stack.stats();
    return {
      sample: {
        requestId,
        ms,
        status,
        ok: call.ok ? call.ok.includes(status) : status >= 200 && status < 300,
        ...sent(before, after),
      },
      body,
    };
  };
  const keyFor = (kind: Kind) =>
    sites[kind.key === 'trigger' ? 'triggered' : kind.key === 'webhook' ? 'hooked' : 'main'].users.owner.apiKey;

  const results: Record<Phase, Record<string, PhaseResult>> = { near: {}, placed: {}, far: {} };
  const runPhase = async (phase: Phase, base: string, clientRttMs: number) => {
    log('');
    log(`${phase}: the database ${stack.databaseRttMs} ms away, the client ${clientRttMs} ms`);
    for (const kind of chosen) {
      const samples: Sample[] = [];
      let errors = 0;
      let firstError: string | undefined;
      let notQuiet = 0;
      for (let i = 0; i < config.requests; i++) {
        const call = kind.call(phase, i);
        const { sample: answered, body } = await send(base, {
          ...call,
          headers: { ...call.headers, authorization: `Bearer ${keyFor(kind)}` },
        });
        // Near and placed (the database near: the work takes ms), and far with BENCH_FAR_ISOLATE=1,
        // the next request waits until this one's work is over. Far, by default, requests follow
        // one another as a client's do, the work they leave behind running meanwhile: at today's
        // figures waiting for it would take most of an hour.
        const after = phase !== 'far' || config.isolate ? await quiet() : undefined;
        if (after && !after.quiet) notQuiet++;
        const sample: Sample = { ...answered, ...(after ? { afterwork: after.afterwork } : {}) };
        if (!sample.ok) {
          errors++;
          firstError ??= `${call.method} ${call.path.split('?')[0]} answered ${sample.status || 'nothing'}: ${body.slice(0, 1000)}`;
        }
        if (i >= config.warmup) samples.push(sample);
      }
      // the latencies of the answers that did what was asked; the counts of every request
      const latencies = samples
        .filter((s) => s.ok)
        .map((s) => s.ms)
        .sort((a, b) => a - b);
      const per = (pick: (s: Sample) => number) => samples.reduce((sum, s) => sum + pick(s), 0) / samples.length;
      const counts = samples.map((s) => counted.get(s.requestId));
      const result: PhaseResult = {
        measured: samples.length,
        errors,
        firstError,
        p50: percentile(latencies, 50),
        p95: percentile(latencies, 95),
        httpRequests: per((s) => s.httpRequests),
        statements: per((s) => s.statements),
        batches: per((s) => s.batches),
        wsConnections: per((s) => s.wsConnections),
        serviceCounted: counts.every((n) => n !== undefined)
          ? counts.reduce((sum: number, n) => sum + n!, 0) / counts.length
          : null,
        afterwork: samples.every((s) => s.afterwork)
          ? {
              ms: percentile(
                samples.map((s) => s.afterwork!.ms).sort((a, b) => a - b),
                50,
              ),
              httpRequests: per((s) => s.afterwork!.httpRequests),
              statements: per((s) => s.afterwork!.statements),
              batches: per((s) => s.afterwork!.batches),
              wsConnections: per((s) => s.afterwork!.wsConnections),
            }
          : null,
        notQuiet,
        samples,
      };
      results[phase][kind.key] = result;
      const work = result.afterwork;
      const workLine = (w: Afterwork) =>
        `${fixed(w.ms, 0)} ms of work: ${fixed(w.httpRequests, 1)} HTTP (${fixed(w.statements, 1)} statements), ${fixed(w.wsConnections, 1)} WebSockets`;
      log(
        `  ${kind.label}: p50 ${fixed(result.p50)} ms, p95 ${fixed(result.p95)} ms; a request: ${fixed(result.httpRequests, 1)} HTTP (${fixed(result.statements, 1)} statements), ` +
          `${fixed(result.wsConnections, 1)} WebSockets, ${result.serviceCounted === null ? 'no' : fixed(result.serviceCounted, 1)} round trips by its log line; ` +
          (work ? `after each answer ${workLine(work)}` : 'the work after the answers not waited for') +
          `; errors ${errors}${notQuiet ? `; ${notQuiet} whose work did not end within ${config.quietMs} ms` : ''}`,
      );
      if (firstError) log(`    first error: ${firstError}`);
    }
  };

  await quiet();
  const phaseSeconds: Partial<Record<Phase, number>> = {};
  /** the far client's connections through the delaying proxy, each of which paid its set-up */
  let clientConnections: number | undefined;
  for (const phase of config.modes) {
    phaseNow = phase;
    const from = Date.now();
    if (phase === 'placed') {
      const client = await startClientDistance({ workerUrl: service.url, rttMs: config.rttMs });
      stops.push(client.stop);
      await runPhase(phase, client.url, config.rttMs);
      clientConnections = client.connections();
    } else {
      if (phase === 'far') await stack.setDatabaseRtt(config.rttMs);
      await runPhase(phase, service.url, 0);
    }
    phaseSeconds[phase] = (Date.now() - from) / 1000;
  }
  // what the far requests left behind, and how long it takes to finish after the last answer
  const backlog = config.isolate || !config.modes.includes('far') ? undefined : await quiet();
  const {
    rows: [left],
  } = await watcher.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE dispatched_at IS NULL');
  const fired = await watcher.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM tickets WHERE installation_id = $1 AND priority_id = $2',
    [sites.triggered.id, triggerPriority],
  );
  log('');
  log(
    `phases: ${config.modes.map((m) => `${m} ${fixed(phaseSeconds[m]!, 0)} s`).join(', ')}; the trigger set the priority of ${fired.rows[0]!.n} tickets; the webhook receiver got ${receiver.received()} deliveries`,
  );
  if (clientConnections !== undefined)
    log(
      `placed: the client opened ${clientConnections} connection(s) through the delaying proxy, each paying one round trip of set-up; every other request reused one`,
    );
  if (backlog) {
    const w = backlog.afterwork;
    log(
      `the far requests' work after their answers: ${backlog.quiet ? 'over' : 'still running'} ${fixed(w.ms / 1000, 1)} s after the last answer ` +
        `(${w.httpRequests} HTTP requests, ${w.wsConnections} WebSockets meanwhile); ${left!.n} events not yet dispatched`,
    );
  }
  for (const phase of config.modes) {
    // by level and message, with the first line of each
    const first = new Map<string, { n: number; line: string }>();
    for (const line of loggedErrors[phase]) {
      let key = line;
      try {
        const { level, message } = JSON.parse(line) as { level: string; message: string };
        key = `${level}: ${message}`;
      } catch {
        // workerd's own line: itself
      }
      const seen = first.get(key);
      if (seen) seen.n++;
      else first.set(key, { n: 1, line });
    }
    log(`error and warning lines the service logged, ${phase}: ${loggedErrors[phase].length}`);
    for (const [key, { n, line }] of first) log(`  ${n} x ${key.slice(0, 200)}\n    first: ${line}`);
  }

  const ran = (phase: Phase) => config.modes.includes(phase);
  /** A phase's p50 in round trips over near's (NaN when either did not run). */
  const over = (kind: Kind, phase: Phase) =>
    ran('near') && ran(phase) ? (results[phase][kind.key]!.p50 - results.near[kind.key]!.p50) / config.rttMs : NaN;
  const rows = chosen.map((kind) => {
    const [near, placed, far] = MODES.map((m) => results[m][kind.key]);
    const waited = over(kind, 'far');
    const pass = near && far ? waited <= kind.target + TOLERANCE && near.errors + far.errors === 0 : undefined;
    return { kind, near, placed, far, waited, pass };
  });
  if (ran('near') && ran('far')) {
    log('');
    log(
      `One request at a time, the database near and ${config.rttMs} ms away. Round trips waited = (p50 far - p50 near) / ${config.rttMs} ms; ` +
        `a target is met up to +${TOLERANCE} round trip (1: p50 far <= p50 near + 1.2 x RTT) and with no error. HTTP requests, statements in them and WebSocket ` +
        'connections: a request\'s, near (far, the work earlier requests left behind runs meanwhile: see the raw results); "by log": the round trips the service counted ' +
        '(its log line, near/far; the mail handler logs none); "after": the work a request left behind, near: until when after the answer, HTTP requests, WebSockets.',
    );
    log(
      align(
        [
          'request',
          'near p50',
          'near p95',
          'far p50',
          'far p95',
          'round trips',
          'HTTP',
          'statements',
          'WS',
          'by log',
          'after ms',
          'after HTTP',
          'after WS',
          'errors near/far',
          'target',
          '',
        ],
        rows.map(({ kind, near, far, waited, pass }) => [
          kind.label,
          fixed(near!.p50),
          fixed(near!.p95),
          fixed(far!.p50),
          fixed(far!.p95),
          fixed(waited, 1),
          fixed(near!.httpRequests, 1),
          fixed(near!.statements, 1),
          fixed(near!.wsConnections, 1),
          near!.serviceCounted === null
            ? '-'
            : `${fixed(near!.serviceCounted, 1)}/${fixed(far!.serviceCounted ?? NaN, 1)}`,
          fixed(near!.afterwork?.ms ?? NaN, 0),
          fixed(near!.afterwork?.httpRequests ?? NaN, 1),
          fixed(near!.afterwork?.wsConnections ?? NaN, 1),
          `${near!.errors}/${far!.errors}`,
          `<= ${kind.target}`,
          pass ? 'pass' : 'FAIL',
        ]),
      ),
    );
  }
  if (ran('placed')) {
    // Which answers sooner, the Worker at the edge (far) or placed next to the database: even within this much of a round trip.
    const EVEN = 0.2;
    const sooner = (far: PhaseResult | undefined, placed: PhaseResult) => {
      if (!far) return '-';
      const gain = (far.p50 - placed.p50) / config.rttMs;
      return Math.abs(gain) <= EVEN ? 'even' : gain > 0 ? 'placed' : 'edge';
    };
    log('');
    log(
      `Where to run the Worker, one request at a time, ${config.rttMs} ms between the client and the database. near: both next to the Worker; ` +
        `far: the Worker at the edge next to the client, the database ${config.rttMs} ms away; placed: the Worker next to the database, the client ` +
        `${config.rttMs} ms away (the delaying proxy). "far RTs" and "placed RTs": p50 over near's, in round trips; "far - placed": what placing saves ` +
        `(negative: what it costs); sooner: the one whose p50 is lower by more than ${EVEN} round trip, else even.`,
    );
    log(
      align(
        [
          'request',
          'near p50',
          'near p95',
          'far p50',
          'far p95',
          'placed p50',
          'placed p95',
          'far RTs',
          'placed RTs',
          'far - placed ms',
          'sooner',
          'errors near/placed/far',
        ],
        rows.map(({ kind, near, placed, far }) => [
          kind.label,
          fixed(near?.p50 ?? NaN),
          fixed(near?.p95 ?? NaN),
          fixed(far?.p50 ?? NaN),
          fixed(far?.p95 ?? NaN),
          fixed(placed!.p50),
          fixed(placed!.p95),
          fixed(over(kind, 'far'), 1),
          fixed(over(kind, 'placed'), 1),
          fixed(far ? far.p50 - placed!.p50 : NaN, 0),
          sooner(far, placed!),
          [near, placed, far].map((r) => (r ? String(r.errors) : '-')).join('/'),
        ]),
      ),
    );
  }
  const errors = rows.flatMap((r) =>
    MODES.flatMap((m) => (r[m]?.firstError ? [`  ${r.kind.key} ${m}: ${r[m]!.firstError}`] : [])),
  );
  if (errors.length) {
    log('');
    log('errors (the first of each kind and phase):');
    for (const line of errors) log(line);
  }
  const file = await writeResults(
    {
      startedAt: new Date(started).toISOString(),
      machine: host,
      config,
      phaseSeconds,
      clientConnections,
      triggerFired: fired.rows[0]!.n,
      webhookDeliveries: receiver.received(),
      backlog,
      eventsLeft: left!.n,
      loggedErrors,
      kinds: rows.map(({ kind, near, placed, far, waited, pass }) => ({
        key: kind.key,
        label: kind.label,
        target: kind.target,
        waited,
        placedOver: over(kind, 'placed'),
        pass,
        near,
        placed,
        far,
      })),
    },
    'far',
  );
  log(`\nraw results: ${file}`);
}

await runBench(main);
