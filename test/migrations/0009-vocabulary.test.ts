// Migration 0009 on a database that has data: installations made before it get the ticket
// priorities, types and sources a new installation starts with; the platform's statuses are
// there for all; their customers, users and inboxes are left as they were.
import { describe, expect, it } from 'vitest';
import { databaseBefore } from '../support/migration-db';

const database = databaseBefore('0009_vocabulary');

describe('migration 0009', () => {
  it('gives every installation made before it the default vocabulary, and keeps its rows', async () => {
    const { rows: sites } = await database
      .client()
      .query(`INSERT INTO installations (name, site_name) VALUES ('Old', 'old-a'), ('Older', 'old-b') RETURNING id`);
    for (const site of sites) {
      await database
        .client()
        .query(`INSERT INTO customers (installation_id, first_name, email) VALUES ($1, 'Kept', 'kept@old.example')`, [
          site.id,
        ]);
      await database.client().query(`INSERT INTO inboxes (installation_id, name) VALUES ($1, 'Old inbox')`, [site.id]);
    }
    await database.migrateToLatest();
    for (const site of sites) {
      const count = async (table: string) =>
        (await database.client().query(`SELECT count(*)::int AS n FROM ${table} WHERE installation_id = $1`, [site.id]))
          .rows[0].n;
      expect([await count('ticket_priorities'), await count('ticket_types'), await count('ticket_sources')]).toEqual([
        4, 3, 7,
      ]);
      expect(
        (await database.client().query(`SELECT first_name, email FROM customers WHERE installation_id = $1`, [site.id]))
          .rows,
      ).toEqual([{ first_name: 'Kept', email: 'kept@old.example' }]);
      expect(
        (
          await database
            .client()
            .query(`SELECT name, ticket_status_id FROM inboxes WHERE installation_id = $1`, [site.id])
        ).rows,
      ).toEqual([{ name: 'Old inbox', ticket_status_id: null }]);
    }
    const { rows: statuses } = await database
      .client()
      .query(`SELECT id, code FROM ticket_statuses WHERE installation_id IS NULL ORDER BY id`);
    expect(statuses.map((s) => `${s.id}:${s.code}`)).toEqual([
      '1:active',
      '3:waiting',
      '4:onhold',
      '5:solved',
      '6:closed',
      '7:spam',
    ]);
    const {
      rows: [custom],
    } = await database
      .client()
      .query(`INSERT INTO ticket_statuses (installation_id, name) VALUES ($1, 'Own') RETURNING id`, [sites[0].id]);
    expect(custom.id).toBe(100);
  });
});
