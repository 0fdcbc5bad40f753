// Migration 0011 on a database that has teammates and keys: every teammate keeps its row with the
// platform's defaults (UTC, 12-hour clock, html), a revoked key becomes a deleted one (and stays
// refused), a live key stays live.
import { describe, expect, it } from 'vitest';
import { databaseBefore } from '../support/migration-db';

const database = databaseBefore('0011_teammates');

describe('migration 0011', () => {
  it('keeps every teammate and key; revoked keys become deleted ones', async () => {
    const db = () => database.client();
    const {
      rows: [site],
    } = await db().query(`INSERT INTO installations (name, site_name) VALUES ('Old', 'old-team') RETURNING id`);
    const {
      rows: [owner],
    } = await db().query(
      `INSERT INTO users (installation_id, first_name, email, role) VALUES ($1, 'Olga', 'olga@old.example', 'owner') RETURNING id`,
      [site.id],
    );
    const key = (hash: string, revoked: boolean) =>
      db().query(
        `INSERT INTO credentials (installation_id, user_id, kind, prefix, secret_hash, revoked_at) VALUES ($1, $2, 'api_key', 'hd_x', $3, $4) RETURNING id`,
        [site.id, owner.id, hash, revoked ? new Date('2026-01-02T03:04:05Z') : null],
      );
    const live = (await key('live-hash', false)).rows[0].id;
    const revoked = (await key('revoked-hash', true)).rows[0].id;
    await database.migrateToLatest();

    const { rows: users } = await db().query(
      `SELECT first_name, role, timezone_id, time_format_id, edit_method, state FROM users WHERE id = $1`,
      [owner.id],
    );
    expect(users).toEqual([
      { first_name: 'Olga', role: 'owner', timezone_id: 1, time_format_id: 1, edit_method: 'html', state: 'active' },
    ]);
    const { rows: keys } = await db().query(
      `SELECT id, state, deleted_at FROM credentials WHERE installation_id = $1 ORDER BY id`,
      [site.id],
    );
    expect(keys).toEqual([
      { id: live, state: 'active', deleted_at: null },
      { id: revoked, state: 'deleted', deleted_at: new Date('2026-01-02T03:04:05Z') },
    ]);
  });
});
