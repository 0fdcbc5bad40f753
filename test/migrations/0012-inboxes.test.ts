// Migration 0012 on a database that has inboxes: each keeps its row, two live inboxes with one
// address keep it on the oldest only, and every seated teammate becomes a member with full access.
import { describe, expect, it } from 'vitest';
import { databaseBefore } from '../support/migration-db';

const database = databaseBefore('0012_inboxes');

describe('migration 0012', () => {
  it('keeps every inbox, makes addresses unique, and seats the teammates', async () => {
    const db = () => database.client();
    const {
      rows: [site],
    } = await db().query(`INSERT INTO installations (name, site_name) VALUES ('Old', 'old-inboxes') RETURNING id`);
    const user = async (role: string) =>
      (
        await db().query(
          `INSERT INTO users (installation_id, first_name, email, role) VALUES ($1, 'U', $2, $3) RETURNING id`,
          [site.id, `${role}@old.example`, role],
        )
      ).rows[0].id;
    const [owner, agent] = [await user('owner'), await user('agent')];
    await user('collaborator');
    const inbox = async (name: string, email: string | null) =>
      (
        await db().query(`INSERT INTO inboxes (installation_id, name, email) VALUES ($1, $2, $3) RETURNING id`, [
          site.id,
          name,
          email,
        ])
      ).rows[0].id;
    const first = await inbox('First', 'help@old.example');
    const twin = await inbox('Twin', 'HELP@old.example');
    await database.migrateToLatest();

    const { rows: inboxes } = await db().query(
      `SELECT id, name, email, spam_threshold FROM inboxes WHERE installation_id = $1 ORDER BY id`,
      [site.id],
    );
    expect(inboxes).toEqual([
      { id: first, name: 'First', email: 'help@old.example', spam_threshold: 5 },
      { id: twin, name: 'Twin', email: null, spam_threshold: 5 },
    ]);
    const { rows: members } = await db().query(
      `SELECT inbox_id, user_id, access FROM inbox_users WHERE installation_id = $1 ORDER BY 1, 2`,
      [site.id],
    );
    expect(members).toEqual([
      { inbox_id: first, user_id: owner, access: 'full' },
      { inbox_id: first, user_id: agent, access: 'full' },
      { inbox_id: twin, user_id: owner, access: 'full' },
      { inbox_id: twin, user_id: agent, access: 'full' },
    ]);
  });
});
