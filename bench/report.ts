// What a run prints and keeps: the machine, the table of figures, the target checks, the round
// trips, and the raw results as JSON in bench/results/ (gitignored).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { CpuUse } from './cpu';
import type { LoadResult } from './load';
import type { RoundTrips } from './round-trips';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Measured {
  key: string;
  label: string;
  result: LoadResult;
}

export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

export function machine() {
  const cpu =
    /^model name\s*:\s*(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  const workerd = execFileSync(path.join(root, 'node_modules', '.bin', 'workerd'), ['--version'], {
    encoding: 'utf8',
  }).trim();
  const workerdPackage = JSON.parse(
    readFileSync(path.join(root, 'node_modules', 'workerd', 'package.json'), 'utf8'),
  ) as { version: string };
  return {
    nproc: os.availableParallelism(),
    cpu,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    workerd: `${workerd} (npm workerd ${workerdPackage.version})`,
    loadAverageAtStart: os.loadavg().map((v) => Math.round(v * 100) / 100),
  };
}

export const fixed = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : '-');

export function table(measured: Measured[], ceilingRps: number): string {
  const head = ['target', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'x ceiling'];
  const rows = measured.map(({ label, result: r }) => [
    label,
    fixed(r.rps, 0),
    fixed(r.p50),
    fixed(r.p99),
    String(r.non2xx),
    String(r.errors + r.timeouts),
    fixed(r.rps / ceilingRps, 2),
  ]);
  return align(head, rows);
}

/** Cores used during each measurement, by process group (the machine has `nproc` of them). */
/** The groups of processes `bench/cpu.ts` counts the machine's CPU by. */
export const CPU_GROUPS = ['workerd', 'postgres', 'stand-ins', 'load', 'other'] as const;

/** Cores used over a run at `perSecond` units a second, as CPU milliseconds a unit (a request, a message). */
export function msEach(cores: number, perSecond: number): string {
  return fixed((cores / perSecond) * 1000, 2);
}

/** Cores the groups used together. */
export function coresTotal(cpu: CpuUse): number {
  return CPU_GROUPS.reduce((sum, g) => sum + cpu[g], 0);
}

export function cpuTable(measured: Measured[]): string {
  const head = [
    'target',
    ...CPU_GROUPS.map((g) => (g === 'stand-ins' ? 'stand-ins (node)' : g)),
    'total',
    'steal',
    'workerd ms/req',
    'postgres ms/req',
  ];
  // CPU time per request holds up better than req/s when something else takes a share of the machine.
  const rows = measured.map(({ label, result: { cpu, rps } }) => [
    label,
    ...CPU_GROUPS.map((g) => fixed(cpu[g], 2)),
    fixed(coresTotal(cpu), 2),
    fixed(cpu.steal, 2),
    msEach(cpu.workerd, rps),
    msEach(cpu.postgres, rps),
  ]);
  return align(head, rows);
}

export function align(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** Targets during which processes outside the benchmark took a noticeable share of the machine. */
export function disturbed(measured: Measured[], threshold = 0.2): string[] {
  return measured
    .filter(({ result: { cpu } }) => cpu.other + cpu.steal > threshold)
    .map(
      ({ label, result: { cpu } }) =>
        `${label}: other processes ${fixed(cpu.other, 2)} cores, steal ${fixed(cpu.steal, 2)}`,
    );
}

export function checks(ceiling: LoadResult, bareHttp: LoadResult, get: LoadResult, list: LoadResult): Check[] {
  return [
    {
      name: '(i) service GET req/s >= 0.5 x ceiling',
      pass: get.rps >= 0.5 * ceiling.rps,
      detail: `${fixed(get.rps, 0)} req/s vs 0.5 x ${fixed(ceiling.rps, 0)} = ${fixed(0.5 * ceiling.rps, 0)} (ratio ${fixed(get.rps / ceiling.rps, 2)})`,
    },
    {
      name: '(ii) service GET p50 <= 1.2 x bare-SQL-HTTP p50',
      pass: get.p50 <= 1.2 * bareHttp.p50,
      detail: `${fixed(get.p50)} ms vs 1.2 x ${fixed(bareHttp.p50)} = ${fixed(1.2 * bareHttp.p50)} ms (ratio ${fixed(get.p50 / bareHttp.p50, 2)})`,
    },
    {
      name: '(iii) list (pageSize=50, includes=all) p50 <= 2 x service GET p50',
      pass: list.p50 <= 2 * get.p50,
      detail: `${fixed(list.p50)} ms vs 2 x ${fixed(get.p50)} = ${fixed(2 * get.p50)} ms (ratio ${fixed(list.p50 / get.p50, 2)})`,
    },
  ];
}

/**
 * The list's own targets: its p50 against the bare SQL Worker sending the very same statement
 * (the service's cost over the driver's), and the Postgres CPU a list request costs, from /proc.
 */
export function listChecks(bareList: LoadResult, list: LoadResult): Check[] {
  const postgresMs = (r: LoadResult) => (r.cpu.postgres / r.rps) * 1000;
  return [
    {
      name: '(iv) list p50 <= 1.2 x bare-SQL list p50 (the same statement)',
      pass: list.p50 <= 1.2 * bareList.p50,
      detail: `${fixed(list.p50)} ms vs 1.2 x ${fixed(bareList.p50)} = ${fixed(1.2 * bareList.p50)} ms (ratio ${fixed(list.p50 / bareList.p50, 2)})`,
    },
    {
      name: '(v) list Postgres CPU <= 8 ms per request',
      pass: postgresMs(list) <= 8,
      detail: `${fixed(postgresMs(list), 2)} ms (${fixed(list.cpu.postgres, 2)} cores at ${fixed(list.rps, 0)} req/s; bare SQL list ${fixed(postgresMs(bareList), 2)} ms)`,
    },
  ];
}

/** The p-th percentile of ascending values (nearest rank). */
export function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN;
}

/**
 * Rounds of one target pooled (each loaded with `keepLatencies`): rates over all measured
 * seconds, percentiles over every response, CPU weighted by time.
 */
export function pooled(results: LoadResult[]): LoadResult {
  const seconds = results.reduce((sum, r) => sum + r.seconds, 0);
  const latencies = results.flatMap((r) => r.latencies ?? []).sort((a, b) => a - b);
  const weighted = (pick: (r: LoadResult) => number) =>
    results.reduce((sum, r) => sum + pick(r) * r.seconds, 0) / seconds;
  const cpu = Object.fromEntries(
    Object.keys(results[0]!.cpu).map((key) => [
      key,
      Math.round(weighted((r) => r.cpu[key as keyof LoadResult['cpu']]) * 100) / 100,
    ]),
  ) as LoadResult['cpu'];
  const sum = (pick: (r: LoadResult) => number) => results.reduce((total, r) => total + pick(r), 0);
  const statusCodes: Record<string, number> = {};
  for (const r of results)
    for (const [code, n] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  return {
    seconds,
    requests: sum((r) => r.requests),
    rps: sum((r) => r.requests) / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    mean: latencies.reduce((total, v) => total + v, 0) / (latencies.length || 1),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    statusCodes,
    autocannon: { p50: NaN, p99: NaN, requestsPerSecondAverage: NaN },
    cpu,
  };
}

export function roundTripTable(counts: RoundTrips[]): string {
  const head = ['requests', 'n', 'HTTP', 'statements', 'batches', 'WS conns', 'round trips / request', 'p50 ms alone'];
  const rows = counts.map((c) => [
    c.label,
    String(c.requests),
    String(c.httpRequests),
    String(c.statements),
    String(c.batches),
    String(c.wsConnections),
    fixed(c.perRequest, 2),
    fixed(c.p50Ms),
  ]);
  return align(head, rows);
}

/**
 * Writes the run as `bench/results/<kind->time.json` and `<kind->latest.json` (`npm run bench`'s
 * are unprefixed); returns the first path.
 */
export async function writeResults(
  results: unknown,
  kind?:
    | 'import'
    | 'room'
    | 'events'
    | 'tickets'
    | 'automation'
    | 'webhooks'
    | 'mail'
    | 'ratelimit'
    | 'soak'
    | 'assemble'
    | 'far'
    | 'ai',
): Promise<string> {
  const dir = path.join(root, 'bench', 'results');
  await mkdir(dir, { recursive: true });
  const json = `${JSON.stringify(results, null, 2)}\n`;
  const prefix = kind ? `${kind}-` : '';
  const file = path.join(dir, `${prefix}${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(file, json);
  await writeFile(path.join(dir, `${prefix}latest.json`), json);
  return path.relative(root, file);
}

/** One plain `pg` connection for the work, closed after it. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Processes under this one still running, apart from tsx's own esbuild service (it ends with us) and zombies. */
export function leftoverProcesses(): string[] {
  const all = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .flatMap((m) => (m ? [{ pid: Number(m[1]), ppid: Number(m[2]), stat: m[3]!, args: m[4]! }] : []));
  const mine = new Set([process.pid]);
  for (let grown = true; grown;) {
    grown = false;
    for (const p of all) if (!mine.has(p.pid) && mine.has(p.ppid)) (mine.add(p.pid), (grown = true));
  }
  return (
    all
      .filter((p) => p.pid !== process.pid && mine.has(p.pid))
      // not ps itself, not tsx's esbuild, not a zombie (already dead; reaped when we exit)
      .filter((p) => !p.args.startsWith('ps ') && !/tsx\/.*esbuild --service/.test(p.args) && !p.stat.startsWith('Z'))
      .map((p) => `${p.pid} ${p.args.slice(0, 120)}`)
  );
}
