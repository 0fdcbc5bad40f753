// `npm run bench:import`: the import benchmark of issue 4 ("Speed"), in one run, on 127.0.0.1 only.
//
//   1. a throwaway local stack and one installation (createInstallation, scripts/seed.ts);
//   2. the service Worker in workerd through Miniflare, with the real Miniflare queue and the
//      consumer of wrangler.toml (startWorker, scripts/worker-under-test.ts);
//   3. a 100,000-row CSV (name,email,website,industry,domains,phones) POSTed to
//      /v2/companies/import.csv with the owner's key, the job polled through
//      GET /v2/backgroundjobs/{id}.json until completed: rows/s end to end and of the request alone;
//   4. the baseline: the same companies, domains and phones into a fresh installation with plain
//      multi-row INSERTs (BENCH_IMPORT_BATCH rows a statement, one transaction) through the Neon
//      driver's Pool over the local WebSocket proxy, as the Worker's transactions go;
//   5. the ratio and the two target checks, the counts verified, the raw results in bench/results/,
//      and everything it started stopped.
//
// Settings (environment): BENCH_IMPORT_ROWS=100000 BENCH_IMPORT_BATCH=1000 BENCH_IMPORT_POLL_MS=250
// BENCH_IMPORT_TIMEOUT=300 (seconds to wait for the job).
import { neonConfig, Pool, type PoolClient } from '@neondatabase/serverless';
import ws from 'ws';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInstallation, type SeededInstallation } from '../scripts/seed';
import { startLocalStack, type LocalStack } from '../scripts/stack';
import { startWorker } from '../scripts/worker-under-test';
import { quietWranglerEnv } from '../scripts/worker-vars';
import { applyLocalStackSettings } from '../src/db/local-stack-settings';
import { coresUsed as processCores, snapshot as processSnapshot, type CpuUse } from './cpu';
import { fixed, machine, withClient, writeResults, type Check } from './report';
import { log, runBench, setting, started, stops } from './lifecycle';

const config = {
  rows: setting('BENCH_IMPORT_ROWS', 100_000, true),
  insertBatchRows: setting('BENCH_IMPORT_BATCH', 1_000, true),
  pollMs: setting('BENCH_IMPORT_POLL_MS', 250, true),
  timeoutSeconds: setting('BENCH_IMPORT_TIMEOUT', 300, true),
};
/** The targets of issue 4. */
const TARGET_RATIO = 0.5;
const TARGET_SECONDS = 60;
Object.assign(process.env, quietWranglerEnv);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Busy and total ticks of the whole machine (/proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const n = values.map(Number);
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - n[3]! - n[4]!, total };
}
type Snapshot = { processes: ReturnType<typeof processSnapshot>; machine: { busy: number; total: number } };
const snapshot = (): Snapshot => ({ processes: processSnapshot(), machine: machineTicks() });
/**
 * Cores used by group, and by the whole machine. bench/cpu.ts counts Postgres backends that exited
 * in between too (the consumer opens and ends one connection per chunk).
 */
function coresUsed(before: Snapshot, after: Snapshot): CpuUse & { machine: number } {
  const use = processCores(before.processes, after.processes);
  const cores =
    ((after.machine.busy - before.machine.busy) / (after.machine.total - before.machine.total)) *
    readdirSync('/sys/devices/system/cpu').filter((d) => /^cpu\d+$/.test(d)).length;
  return { ...use, machine: Math.round(cores * 100) / 100 };
}

/** Company i (1-based) of the file and of the baseline: the same values in both. */
function company(i: number) {
  const n = String(i).padStart(6, '0');
  return {
    name: `Import Co ${n}`,
    email: `info@import-${i}.test`,
    website: `https://import-${i}.test`,
    industry: ['Software', 'Retail', 'Health', 'Energy'][i % 4]!,
    domain: `import-${i}.test`,
    phone: `+1 555 ${n}`,
  };
}

function csvOf(rows: number): string {
  const lines = ['name,email,website,industry,domains,phones'];
  for (let i = 1; i <= rows; i++) {
    const c = company(i);
    lines.push(`${c.name},${c.email},${c.website},${c.industry},${c.domain},${c.phone}`);
  }
  return `${lines.join('\n')}\n`;
}

const newInstallation = (stack: LocalStack, name: string) =>
  withClient(stack.databaseUrl, (client) => createInstallation(client, `${name}-${Date.now().toString(36)}`));

/** Companies, domains and phones of an installation, as counted in Postgres. */
async function counts(stack: LocalStack, installationId: number) {
  return withClient(stack.databaseUrl, async (client) => {
    const { rows } = await client.query<{ companies: number; domains: number; phones: number }>(
      `SELECT (SELECT count(*)::int FROM companies WHERE installation_id = $1) AS companies,
              (SELECT count(*)::int FROM company_domains WHERE installation_id = $1) AS domains,
              (SELECT count(*)::int FROM company_phones WHERE installation_id = $1) AS phones`,
      [installationId],
    );
    return rows[0]!;
  });
}

interface Job {
  status: string;
  rowsTotal: number;
  rowsDone: number;
  rowsFailed: number;
  startedAt: string | null;
  finishedAt: string | null;
  problems: unknown[];
}

interface ImportRun {
  csvBytes: number;
  requestSeconds: number;
  totalSeconds: number;
  /** from the job's own timestamps (now() in each chunk's transaction): first chunk's start to the last chunk's start */
  jobSeconds: number | null;
  polls: number;
  /** rowsDone as seen by the polls, seconds after the request started */
  progress: Array<{ at: number; rowsDone: number }>;
  job: Job;
  /** cores used during the request, and from its answer to the job completed */
  requestCpu: CpuUse & { machine: number };
  cpu: CpuUse & { machine: number };
}

async function runImport(url: string, key: string, csv: string): Promise<ImportRun> {
  const auth = { authorization: `Bearer ${key}` };
  const before = snapshot();
  const t0 = performance.now();
  const response = await fetch(`${url}/v2/companies/import.csv`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'text/csv' },
    body: csv,
  });
  const text = await response.text();
  const requestSeconds = (performance.now() - t0) / 1000;
  const location = response.headers.get('location') ?? '';
  if (response.status !== 201 || !/^\/v2\/backgroundjobs\/\d+\.json$/.test(location)) {
    throw new Error(`the import request answered ${response.status} (Location "${location}"): ${text.slice(0, 500)}`);
  }
  const afterRequest = snapshot();
  const requestCpu = coresUsed(before, afterRequest);
  log(`  request: 201 after ${requestSeconds.toFixed(2)} s, job ${location}`);
  const progress: ImportRun['progress'] = [];
  let polls = 0;
  for (;;) {
    const answer = await fetch(`${url}${location}`, { headers: auth });
    const body = (await answer.json()) as { backgroundjob?: Job };
    polls++;
    if (answer.status !== 200 || !body.backgroundjob)
      throw new Error(`polling ${location} answered ${answer.status}: ${JSON.stringify(body).slice(0, 500)}`);
    const job = body.backgroundjob;
    const at = (performance.now() - t0) / 1000;
    if (progress.at(-1)?.rowsDone !== job.rowsDone)
      progress.push({ at: Math.round(at * 100) / 100, rowsDone: job.rowsDone });
    if (job.status !== 'queued' && job.status !== 'running') {
      const cpu = coresUsed(afterRequest, snapshot());
      const jobSeconds =
        job.startedAt && job.finishedAt ? (Date.parse(job.finishedAt) - Date.parse(job.startedAt)) / 1000 : null;
      return {
        csvBytes: Buffer.byteLength(csv),
        requestSeconds,
        totalSeconds: at,
        jobSeconds,
        polls,
        progress,
        job,
        requestCpu,
        cpu,
      };
    }
    if (at > config.timeoutSeconds)
      throw new Error(
        `job ${location} still ${job.status} after ${config.timeoutSeconds} s: ${job.rowsDone}/${job.rowsTotal} rows`,
      );
    await new Promise((resolve) => setTimeout(resolve, config.pollMs));
  }
}

interface InsertRun {
  seconds: number;
  statements: number;
  cpu: CpuUse & { machine: number };
}

/**
 * The baseline: plain multi-row INSERTs of the same companies, then their domains and phones,
 * in one transaction on one WebSocket connection of the Neon driver's Pool, as the consumer's
 * transaction runs (it too writes companies, then domains, then phones).
 */
async function runPlainInsert(stack: LocalStack, site: SeededInstallation): Promise<InsertRun> {
  neonConfig.webSocketConstructor = ws;
  applyLocalStackSettings({ NEON_LOCAL_WS_PROXY: `127.0.0.1:${stack.wsProxyPort}` });
  const user = site.users.owner.id;
  const before = snapshot();
  const t0 = performance.now();
  const pool = new Pool({ connectionString: stack.databaseUrl, max: 1 });
  let statements = 0;
  try {
    const client: PoolClient = await pool.connect();
    try {
      await client.query('BEGIN');
      for (let from = 1; from <= config.rows; from += config.insertBatchRows) {
        const to = Math.min(from + config.insertBatchRows - 1, config.rows);
        const batch = Array.from({ length: to - from + 1 }, (_, k) => company(from + k));
        // $1 installation, $2 the user (created_by, updated_by); then 4 values a company.
        const values = batch.map((_, k) => `($1, $${3 + 4 * k}, $${4 + 4 * k}, $${5 + 4 * k}, $${6 + 4 * k}, $2, $2)`);
        const inserted = await client.query<{ id: number }>(
          `INSERT INTO companies (installation_id, name, email, website, industry, created_by, updated_by)
           VALUES ${values.join(', ')} RETURNING id`,
          [site.id, user, ...batch.flatMap((c) => [c.name, c.email, c.website, c.industry])],
        );
        const ids = inserted.rows.map((row) => row.id);
        if (ids.length !== batch.length) throw new Error(`INSERT returned ${ids.length} ids for ${batch.length} rows`);
        // $1 installation, $2 the user; then 2 values a row: company id, domain name / phone number.
        const children = batch.map((_, k) => `($1, $${3 + 2 * k}, $${4 + 2 * k}, $2, $2)`).join(', ');
        await client.query(
          `INSERT INTO company_domains (installation_id, company_id, name, created_by, updated_by) VALUES ${children}`,
          [site.id, user, ...batch.flatMap((c, k) => [ids[k], c.domain])],
        );
        await client.query(
          `INSERT INTO company_phones (installation_id, company_id, number, created_by, updated_by) VALUES ${children}`,
          [site.id, user, ...batch.flatMap((c, k) => [ids[k], c.phone])],
        );
        statements += 3;
      }
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, statements, cpu: coresUsed(before, snapshot()) };
}

const cpuLine = (cpu: CpuUse & { machine: number }) =>
  `whole machine ${fixed(cpu.machine, 2)}: workerd ${fixed(cpu.workerd, 2)}, postgres ${fixed(cpu.postgres, 2)}, this node process (proxy, client) ${fixed(cpu['stand-ins'], 2)}, other ${fixed(cpu.other, 2)}, steal ${fixed(cpu.steal, 2)} cores`;

async function main(): Promise<void> {
  const host = machine();
  log(
    `machine: ${host.nproc} CPUs (${host.cpu}), ${host.memoryGiB} GiB, node ${host.node}, ${host.workerd}, load average ${host.loadAverageAtStart.join(' ')}`,
  );
  log(
    `settings: ${config.rows} rows, plain INSERT ${config.insertBatchRows} rows a statement, poll every ${config.pollMs} ms`,
  );

  const stack = await startLocalStack({ purpose: 'test' });
  stops.push(stack.stop);
  const importSite = await newInstallation(stack, 'bench-import');
  log(`local stack up; installation ${importSite.id} for the import`);
  log('bundling and starting the service Worker (workerd, Miniflare queue) ...');
  const worker = await startWorker(stack, { outdir: path.join(root, '.wrangler', 'bench-build', 'service') });
  stops.push(worker.stop);

  const csv = csvOf(config.rows);
  log(`CSV: ${config.rows} rows, ${(Buffer.byteLength(csv) / 2 ** 20).toFixed(1)} MiB`);

  log('import through the queue:');
  const imported = await runImport(worker.url, importSite.users.owner.apiKey, csv);
  const importCounts = await counts(stack, importSite.id);
  const importRate = config.rows / imported.totalSeconds;
  log(
    `  job ${imported.job.status} after ${imported.totalSeconds.toFixed(2)} s (${imported.polls} polls): rowsDone ${imported.job.rowsDone}, rowsFailed ${imported.job.rowsFailed}; job's own startedAt→finishedAt ${imported.jobSeconds === null ? '-' : `${imported.jobSeconds.toFixed(2)} s`}`,
  );
  log(`  CPU during the request: ${cpuLine(imported.requestCpu)}`);
  log(`  CPU from the 201 to completed: ${cpuLine(imported.cpu)}`);

  // The Worker is no longer needed: stop it so the baseline has the machine to itself.
  await worker.stop();
  stops.splice(stops.indexOf(worker.stop), 1);

  const plainSite = await newInstallation(stack, 'bench-plain');
  log(`plain multi-row INSERT (installation ${plainSite.id}, Neon Pool over the WebSocket proxy, one transaction):`);
  const plain = await runPlainInsert(stack, plainSite);
  const plainCounts = await counts(stack, plainSite.id);
  const plainRate = config.rows / plain.seconds;
  log(`  ${plain.statements} statements in ${plain.seconds.toFixed(2)} s`);
  log(`  CPU meanwhile: ${cpuLine(plain.cpu)}`);

  const ratio = importRate / plainRate;
  log('');
  log('                                  seconds      rows/s');
  log(
    `  import, request alone          ${fixed(imported.requestSeconds, 2).padStart(8)}  ${fixed(config.rows / imported.requestSeconds, 0).padStart(10)}`,
  );
  log(
    `  import, end to end             ${fixed(imported.totalSeconds, 2).padStart(8)}  ${fixed(importRate, 0).padStart(10)}`,
  );
  log(`  plain multi-row INSERT         ${fixed(plain.seconds, 2).padStart(8)}  ${fixed(plainRate, 0).padStart(10)}`);
  log(`  ratio import / plain INSERT: ${fixed(ratio, 3)}`);
  log('');

  const want = { companies: config.rows, domains: config.rows, phones: config.rows };
  const same = (a: typeof want) =>
    a.companies === want.companies && a.domains === want.domains && a.phones === want.phones;
  const verified = [
    {
      name: 'import job completed, every row done, none failed',
      pass:
        imported.job.status === 'completed' && imported.job.rowsDone === config.rows && imported.job.rowsFailed === 0,
      detail: `status ${imported.job.status}, rowsDone ${imported.job.rowsDone}, rowsFailed ${imported.job.rowsFailed}`,
    },
    { name: 'import installation rows', pass: same(importCounts), detail: JSON.stringify(importCounts) },
    { name: 'plain INSERT installation rows', pass: same(plainCounts), detail: JSON.stringify(plainCounts) },
  ];
  log('correctness:');
  for (const v of verified) log(`  ${v.pass ? 'OK  ' : 'FAIL'}  ${v.name}: ${v.detail}`);

  const targetChecks: Check[] = [
    {
      name: `import rows/s >= ${TARGET_RATIO} x plain INSERT rows/s`,
      pass: ratio >= TARGET_RATIO,
      detail: `${fixed(importRate, 0)} rows/s vs ${TARGET_RATIO} x ${fixed(plainRate, 0)} = ${fixed(TARGET_RATIO * plainRate, 0)} rows/s (ratio ${fixed(ratio, 3)})`,
    },
    {
      name: `${config.rows} rows imported in under ${TARGET_SECONDS} s`,
      pass: imported.totalSeconds < TARGET_SECONDS,
      detail: `${fixed(imported.totalSeconds, 2)} s from the request's start to the job completed`,
    },
  ];
  log('target checks:');
  for (const check of targetChecks) log(`  ${check.pass ? 'PASS' : 'MISS'}  ${check.name}: ${check.detail}`);

  const file = await writeResults(
    {
      kind: 'import',
      startedAt: new Date(started).toISOString(),
      machine: host,
      config,
      import: {
        ...imported,
        job: { ...imported.job, problems: imported.job.problems.slice(0, 10) },
        rowsPerSecond: importRate,
        requestRowsPerSecond: config.rows / imported.requestSeconds,
        counts: importCounts,
      },
      plainInsert: { ...plain, rowsPerSecond: plainRate, counts: plainCounts },
      ratio,
      checks: targetChecks,
      verified,
    },
    'import',
  );
  log(`\nraw results: ${file}`);
  if (verified.some((v) => !v.pass)) process.exitCode = 1;
}

await runBench(main);
