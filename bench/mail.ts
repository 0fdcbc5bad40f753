// `npm run bench:mail`: inbound mail through the service's email() handler against the same
// messages only parsed by postal-mime, in one run, on 127.0.0.1 only.
//
//   1. a throwaway local stack and the service, as the tests start them, and the bare parser
//      (bench/workers/bare-mail.ts: an email() handler that parses and keeps nothing);
//   2. one installation whose first inbox receives at support@<site>.mail.localhost;
//   3. BENCH_MAIL_MESSAGES messages of realistic size: a few KB of text and HTML, one in ten with a
//      100 KB attachment; four a sender in turn, the fourth a reply to the first (threaded by
//      In-Reply-To); 1,000 senders, so no sender meets the loop limit;
//   4. each variant gets every message through Miniflare's local Email Routing endpoint
//      (`POST /cdn-cgi/handler/email`, which answers once the handler is done: for the service,
//      once the thread entry is committed), BENCH_MAIL_CONCURRENCY at a time, after a warm-up of
//      BENCH_MAIL_WARMUP other messages;
//   5. messages a second and p50/p99 from receipt to stored thread entry (to parsed, for the bare
//      one), what the service wrote (tickets, replies, files), and the target check (issue 15: at
//      least half the bare parser's rate); results in bench/results/.
//
// Settings (environment): BENCH_MAIL_MESSAGES=10000 BENCH_MAIL_CONCURRENCY=8 BENCH_MAIL_WARMUP=200.
import os from 'node:os';
import pg from 'pg';
import { createInstallation } from '../scripts/seed';
import { startLocalStack } from '../scripts/stack';
import { quietWranglerEnv } from '../scripts/worker-vars';
import { log, runBench, setting, started, stops } from './lifecycle';
import { coresUsed, snapshot, type CpuUse } from './cpu';
import { align, coresTotal, CPU_GROUPS, fixed, machine, msEach, percentile, withClient, writeResults } from './report';
import { startBareMail, startService, type RunningWorker } from './workers';

const config = {
  messages: Math.max(1, Math.round(setting('BENCH_MAIL_MESSAGES', 10_000, true))),
  concurrency: Math.max(1, Math.round(setting('BENCH_MAIL_CONCURRENCY', 8, true))),
  warmup: Math.round(setting('BENCH_MAIL_WARMUP', 200)),
};
Object.assign(process.env, quietWranglerEnv);

const TARGET_SHARE = 0.5;
const SENDERS = 1_000;
const PARAGRAPH = 'Hello team, the order we placed last week has not arrived yet and the tracking page shows no movement since Tuesday. ';
const ATTACHMENT = Buffer.from('%PDF-1.4 invoice line item '.repeat(3_800)).toString('base64').replace(/.{76}/g, '$&\r\n'); // about 100 KB

/** Message `i` of a series (`tag` keeps the series' ids apart): its envelope and its raw text. */
function message(tag: string, i: number, to: string): { from: string; raw: string } {
  const sender = `customer${Math.floor(i / 4) % SENDERS}@mail.bench`;
  const id = (n: number) => `${tag}.${n}@mail.bench`;
  const threaded = i % 4 === 3 ? [`In-Reply-To: <${id(i - 3)}>`, `References: <${id(i - 3)}>`] : [];
  const text = PARAGRAPH.repeat(12 + (i % 8));
  const html = `<div><p>${text}</p><p>Order <b>#${i}</b></p></div>`;
  const alternative = ['--alt', 'Content-Type: text/plain; charset=utf-8', '', text, '--alt', 'Content-Type: text/html; charset=utf-8', '', html, '--alt--'];
  const parts = i % 10 === 9
    ? ['Content-Type: multipart/mixed; boundary="mix"', '', '--mix', 'Content-Type: multipart/alternative; boundary="alt"', '', ...alternative,
      '--mix', 'Content-Type: application/pdf; name="invoice.pdf"', 'Content-Disposition: attachment; filename="invoice.pdf"', 'Content-Transfer-Encoding: base64', '', ATTACHMENT, '--mix--']
    : ['Content-Type: multipart/alternative; boundary="alt"', '', ...alternative];
  const raw = [
    // as Email Routing writes its verdict at the top: the replies are the customers' (src/resources/mail/sender-authentication.ts)
    `ARC-Authentication-Results: i=1; mx.cloudflare.net; dkim=pass header.d=${sender.slice(sender.indexOf('@') + 1)}; dmarc=pass header.from=${sender.slice(sender.indexOf('@') + 1)}`,
    `Received: from mx${i % 7}.mail.bench ([198.51.100.${i % 250}]) by mail.localhost; Mon, 23 Nov 2026 10:00:00 +0000`,
    `From: Customer ${i % SENDERS} <${sender}>`, `To: ${to}`, `Subject: ${i % 4 === 3 ? 'Re: ' : ''}Order ${Math.floor(i / 4)} has not arrived`,
    `Message-ID: <${id(i)}>`, ...threaded, 'Date: Mon, 23 Nov 2026 10:00:00 +0000', 'MIME-Version: 1.0', ...parts, '',
  ].join('\r\n');
  return { from: sender, raw };
}

interface Series {
  messages: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
  bytes: number;
}

/** Every message of a series through the worker's email() handler, `concurrency` at a time. */
async function series(worker: RunningWorker, tag: string, count: number, to: string): Promise<Series> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  let bytes = 0;
  const from = performance.now();
  await Promise.all(Array.from({ length: config.concurrency }, async () => {
    while (next < count) {
      const mail = message(tag, next++, to);
      bytes += mail.raw.length;
      const sent = performance.now();
      const response = await fetch(`${worker.url}/cdn-cgi/handler/email?${new URLSearchParams({ from: mail.from, to })}`, { method: 'POST', body: mail.raw });
      await response.arrayBuffer();
      latencies.push(performance.now() - sent);
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    }
  }));
  const seconds = (performance.now() - from) / 1000;
  latencies.sort((a, b) => a - b);
  return { messages: count, seconds, perSecond: count / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), statuses, bytes };
}

async function main(): Promise<void> {
  const host = machine();
  log(`machine: ${host.nproc} CPUs (${host.cpu}), ${host.memoryGiB} GiB, node ${host.node}, ${host.workerd}, load average ${host.loadAverageAtStart.join(' ')}`);
  log(`settings: ${config.messages} messages, ${config.concurrency} at a time, after ${config.warmup} to warm up`);
  const stack = await startLocalStack({ purpose: 'test' });
  stops.push(stack.stop);
  const service = await startService(stack);
  stops.push(service.stop);
  const bare = await startBareMail();
  stops.push(bare.stop);

  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  const site = await createInstallation(client, `mail-${started}`);
  await client.query("UPDATE inboxes SET local_part = 'support' WHERE id = (SELECT min(id) FROM inboxes WHERE installation_id = $1)", [site.id]);
  await client.end();
  const to = `support@${site.siteName}.mail.localhost`;

  const results = {} as Record<'service' | 'bare', Series>;
  const spent = {} as Record<'service' | 'bare', { cpu: CpuUse; webSockets: number; httpRequests: number }>;
  for (const [name, worker] of [['service', service], ['bare', bare]] as const) {
    if (config.warmup) await series(worker, `warm-${name}-${started}`, config.warmup, to);
    const [cpuBefore, dbBefore] = [snapshot(), stack.stats()];
    results[name] = await series(worker, `run-${name}-${started}`, config.messages, to);
    const [cpuAfter, dbAfter] = [snapshot(), stack.stats()];
    spent[name] = {
      cpu: coresUsed(cpuBefore, cpuAfter),
      webSockets: dbAfter.wsProxy.connections - dbBefore.wsProxy.connections,
      httpRequests: dbAfter.sqlHttp.requests - dbBefore.sqlHttp.requests,
    };
    log(`${name}: ${fixed(results[name].perSecond, 1)} messages/s, statuses ${JSON.stringify(results[name].statuses)}`);
  }
  const written = await withClient(stack.databaseUrl, async (c) => (await c.query<Record<string, string>>(`
    SELECT (SELECT count(*) FROM inbound_mails WHERE installation_id = $1 AND outcome = 'ticket') AS tickets,
           (SELECT count(*) FROM inbound_mails WHERE installation_id = $1 AND outcome = 'reply') AS replies,
           (SELECT count(*) FROM inbound_mails WHERE installation_id = $1 AND outcome NOT IN ('ticket', 'reply')) AS other,
           (SELECT count(*) FROM files WHERE installation_id = $1) AS files`, [site.id])).rows[0]!);
  log(`service wrote (warm-up included): ${written.tickets} tickets, ${written.replies} replies, ${written.other} other outcomes, ${written.files} files`);

  const share = results.service.perSecond / results.bare.perSecond;
  log('');
  log(align(['receipt to stored', 'messages', 'MB', 'seconds', 'messages/s', 'p50 ms', 'p99 ms', 'statuses'], (['service', 'bare'] as const).map((v) => {
    const r = results[v];
    return [v, String(r.messages), fixed(r.bytes / 1e6, 1), fixed(r.seconds, 1), fixed(r.perSecond, 1), fixed(r.p50, 1), fixed(r.p99, 1), JSON.stringify(r.statuses)];
  })));
  log('');
  // What a message cost the machine while its series ran (the service's drain of earlier events
  // included): CPU by process (the stand-ins' column is this process: the sender, the SQL-over-HTTP
  // and WebSocket stand-ins), and the database connections and HTTP queries the Worker made.
  log(align(['while measuring', ...CPU_GROUPS.map((g) => `${g} ms/msg`), 'idle cores', 'WebSockets/msg', 'HTTP queries/msg'], (['service', 'bare'] as const).map((v) => {
    const { cpu, webSockets, httpRequests } = spent[v];
    const { messages, perSecond } = results[v];
    return [v, ...CPU_GROUPS.map((g) => msEach(cpu[g], perSecond)), fixed(os.availableParallelism() - coresTotal(cpu), 2), fixed(webSockets / messages, 2), fixed(httpRequests / messages, 2)];
  })));
  log('');
  log(`messages/s service / bare parser: ${fixed(share, 3)} (target at least ${TARGET_SHARE}): ${share >= TARGET_SHARE ? 'met' : 'MISSED'}`);
  const file = await writeResults({ config, host, results, spent, written, share }, 'mail');
  log(`results: ${file}`);
}

await runBench(main);
