import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { createInstallation, type SeededInstallation } from '../../scripts/seed';

let pool: pg.Pool | undefined;

/** A direct connection to the test database, to check rows and to set up what has no endpoint. */
export function db(): pg.Pool {
  if (!pool) {
    pool = new pg.Pool({ connectionString: inject('databaseUrl'), max: 4 });
    afterAll(async () => {
      await pool?.end();
      pool = undefined;
    });
  }
  return pool;
}

/** A fresh installation with a user of each role: each test file works in its own. */
export async function newInstallation(name = 'site'): Promise<SeededInstallation> {
  return createInstallation(db() as unknown as pg.ClientBase, `${name}-${Math.random().toString(36).slice(2, 10)}`);
}

export async function rows<T = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
  return (await db().query(text, values)).rows as T[];
}
