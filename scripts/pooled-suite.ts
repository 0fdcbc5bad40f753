// `npm run test:pooled [vitest arguments]`: the test suite with every database connection through
// PgBouncer in transaction mode, as Neon's pooled endpoint (its `-pooler` host) serves them: a
// throwaway embedded Postgres, PgBouncer in front of it, and `vitest run` with DATABASE_URL naming
// PgBouncer (each test stack then makes its throwaway database through it). PgBouncer is Debian's
// package, not an npm one, so this is not part of `npm test`; docs/connection-strategy.md says
// what it checks.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';
import { asRoot, postgresUser, startPostgres } from './stack/postgres';

if (spawnSync('sh', ['-c', 'command -v pgbouncer'], { stdio: 'ignore' }).status !== 0) {
  console.error(
    'test:pooled needs PgBouncer on the PATH: install it (Debian: `apt-get install pgbouncer`) and run it again.',
  );
  process.exit(2);
}

async function listening(port: number, child: ChildProcess, log: string): Promise<void> {
  const until = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`PgBouncer exited with ${child.exitCode}; see ${log}`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('connect', () => (socket.destroy(), resolve(true))).on('error', () => resolve(false));
    });
    if (up) return;
    if (Date.now() > until) throw new Error(`PgBouncer did not listen on ${port} within 10 s; see ${log}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const postgres = await startPostgres({ purpose: 'test' });
const server = new URL(postgres.url);
const dir = await mkdtemp(path.join(os.tmpdir(), 'helpdesk-pgbouncer-'));
let pgbouncer: ChildProcess | undefined;
let code = 1;
try {
  const port = await freePort();
  const log = path.join(dir, 'pgbouncer.log');
  const user = decodeURIComponent(server.username);
  await writeFile(path.join(dir, 'userlist.txt'), `"${user}" "${decodeURIComponent(server.password)}"\n`);
  await writeFile(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = md5',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 2000',
      'default_pool_size = 20',
      // what the drivers send at startup that PgBouncer would otherwise refuse
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${log}`,
      '',
    ].join('\n'),
  );
  await writeFile(log, '');
  // PgBouncer refuses to run as root: as root, it runs as the OS user the embedded Postgres runs as.
  const ids = asRoot() ? await postgresUser() : undefined;
  if (ids)
    for (const file of ['', 'userlist.txt', 'pgbouncer.ini', 'pgbouncer.log'])
      await chown(path.join(dir, file), ids.uid, ids.gid);
  pgbouncer = spawn('pgbouncer', [path.join(dir, 'pgbouncer.ini')], { stdio: 'ignore', ...(ids ?? {}) });
  await listening(port, pgbouncer, log);
  const pooled = new URL(postgres.url);
  pooled.port = String(port);
  pooled.pathname = '/postgres';
  console.log(
    `PgBouncer (transaction mode) on 127.0.0.1:${port}, in front of Postgres on ${server.port}; running the suite through it`,
  );
  const vitest = spawn('npx', ['vitest', 'run', ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, DATABASE_URL: pooled.toString() },
  });
  code = await new Promise<number>((resolve) => vitest.on('exit', (status) => resolve(status ?? 1)));
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
} finally {
  pgbouncer?.kill('SIGTERM');
  await postgres.stop();
  await rm(dir, { recursive: true, force: true });
}
process.exit(code);
