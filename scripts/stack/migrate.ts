// Applies the committed drizzle-kit migrations (drizzle/) to a database, local stack only.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate as applyMigrations } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';

const migrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../drizzle');

export async function migrate(databaseUrl: string): Promise<void> {
  // No journal yet means nothing generated yet: not an error.
  if (!existsSync(path.join(migrationsFolder, 'meta', '_journal.json'))) return;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await applyMigrations(drizzle(client), { migrationsFolder });
  } finally {
    await client.end();
  }
}
