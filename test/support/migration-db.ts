import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';

const drizzleFolder = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../drizzle');

/** The migrations folder as it was before the given one: the same files, the journal cut there. */
function folderBefore(tag: string): string {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
  cpSync(drizzleFolder, folder, { recursive: true });
  const journalPath = path.join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  journal.entries = journal.entries.slice(
    0,
    journal.entries.findIndex((entry) => entry.tag === tag),
  );
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}

/**
 * A database of its own for the test file, migrated up to just before the migration `tag`, with
 * drizzle's own migrator (as `drizzle-kit migrate` applies them); `migrateToLatest` then applies
 * the rest. Dropped after the file.
 */
export function databaseBefore(tag: string) {
  const name = `migration_${tag.slice(0, 4)}_${Math.random().toString(36).slice(2, 10)}`;
  const state = { client: undefined as unknown as pg.Client, admin: undefined as pg.Client | undefined, before: '' };
  beforeAll(async () => {
    const server = new URL(inject('databaseUrl'));
    server.pathname = '/postgres';
    state.admin = new pg.Client({ connectionString: server.toString() });
    await state.admin.connect();
    await state.admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(inject('databaseUrl'));
    url.pathname = `/${name}`;
    state.client = new pg.Client({ connectionString: url.toString() });
    await state.client.connect();
    state.before = folderBefore(tag);
    await migrate(drizzle(state.client), { migrationsFolder: state.before });
  }, 60_000);
  afterAll(async () => {
    await state.client?.end();
    await state.admin?.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await state.admin?.end();
    if (state.before) rmSync(state.before, { recursive: true, force: true });
  });
  return {
    client: () => state.client,
    migrateToLatest: () => migrate(drizzle(state.client), { migrationsFolder: drizzleFolder }),
  };
}
