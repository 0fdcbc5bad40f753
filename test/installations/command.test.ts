// The operators' command: `npm run installation -- create --site NAME --owner-email EMAIL`
// makes an installation with its defaults on DATABASE_URL and prints the owner's key once.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { api } from '../support/api';
import { rows } from '../support/db';

const run = promisify(execFile);

/** Runs the command; `databaseUrl` null runs it without DATABASE_URL. */
async function command(args: string[], databaseUrl: string | null = inject('databaseUrl')) {
  const env = { ...process.env };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  try {
    const { stdout, stderr } = await run('npx', ['tsx', 'scripts/installation.ts', ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('npm run installation -- create', () => {
  const site = `cmd-${Math.random().toString(36).slice(2, 8)}`;

  it('creates the installation with its defaults and prints a working owner key, once', async () => {
    const result = await command([
      'create',
      '--site',
      site,
      '--owner-email',
      'Boss@Example.com',
      '--name',
      'Command Co',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const key = /^\s+(hd_\w+)$/m.exec(result.stdout)?.[1];
    expect(key, result.stdout).toBeDefined();
    const [installation] = await rows<{ id: number; name: string }>(
      'SELECT id, name FROM installations WHERE site_name = $1',
      [site],
    );
    expect(installation!.name).toBe('Command Co');
    expect(await rows('SELECT email, role FROM users WHERE installation_id = $1', [installation!.id])).toEqual([
      { email: 'Boss@Example.com', role: 'owner' },
    ]);
    // only the key's hash and its prefix are stored
    expect(
      await rows('SELECT prefix, secret_hash FROM credentials WHERE installation_id = $1', [installation!.id]),
    ).toEqual([{ prefix: key!.slice(0, 7), secret_hash: createHash('sha256').update(key!).digest('hex') }]);
    const statuses = await api('/v2/ticketstatuses.json', { key });
    expect(statuses.status, statuses.text).toBe(200);
    expect(statuses.body.ticketstatuses.map((s: any) => s.id)).toEqual([1, 3, 4, 5, 6, 7]);
    const types = await api('/v2/tickettypes.json', { key });
    expect(types.body.tickettypes).toHaveLength(3);
  }, 60_000);

  it('refuses a site name already taken, and bad arguments, creating nothing', async () => {
    const before = await rows('SELECT count(*)::int AS n FROM installations');
    const taken = await command(['create', '--site', site, '--owner-email', 'other@example.com']);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/already exists/);
    const badSite = await command(['create', '--site', 'Not A Site!', '--owner-email', 'x@example.com']);
    expect(badSite.code).toBe(1);
    expect(badSite.stderr).toMatch(/siteName/);
    const badEmail = await command(['create', '--site', `${site}-2`, '--owner-email', 'nobody']);
    expect(badEmail.code).toBe(1);
    expect((await command(['create', '--site', `${site}-3`])).code).toBe(2);
    expect((await command(['delete', '--site', site, '--owner-email', 'x@example.com'])).code).toBe(2);
    const noDatabase = await command(['create', '--site', `${site}-4`, '--owner-email', 'x@example.com'], null);
    expect(noDatabase.code).toBe(2);
    expect(noDatabase.stderr).toMatch(/DATABASE_URL/);
    expect(await rows('SELECT count(*)::int AS n FROM installations')).toEqual(before);
  }, 60_000);
});
