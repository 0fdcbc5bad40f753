// Migration 0010 on a database that has customers: every customer keeps its row, gets its email as
// its main email contact (the oldest of two with one address gets it), and its JSON extra data
// becomes the text the platform's client reads.
import { describe, expect, it } from 'vitest';
import { databaseBefore } from '../support/migration-db';

const database = databaseBefore('0010_customers');

describe('migration 0010', () => {
  it('keeps every customer, with its email as main email contact and its extra data as text', async () => {
    const db = () => database.client();
    const {
      rows: [site],
    } = await db().query(`INSERT INTO installations (name, site_name) VALUES ('Old', 'old-customers') RETURNING id`);
    const insert = (email: string, extra: string | null, state = 'active') =>
      db().query(
        `INSERT INTO customers (installation_id, first_name, email, extra_data, state) VALUES ($1, 'Kept', $2, $3::jsonb, $4) RETURNING id`,
        [site.id, email, extra, state],
      );
    const first = (await insert(' Ada@Old.example ', '{"plan": "gold"}')).rows[0].id;
    const twin = (await insert('ada@old.example', '"just text"')).rows[0].id;
    const blank = (await insert('', null)).rows[0].id;
    const gone = (await insert('gone@old.example', null, 'deleted')).rows[0].id;
    await database.migrateToLatest();

    const { rows: customers } = await db().query(
      `SELECT id, email, extra_data, add_method, permission FROM customers WHERE installation_id = $1 ORDER BY id`,
      [site.id],
    );
    expect(customers).toEqual([
      { id: first, email: ' Ada@Old.example ', extra_data: '{"plan": "gold"}', add_method: 'api', permission: 'all' },
      { id: twin, email: 'ada@old.example', extra_data: 'just text', add_method: 'api', permission: 'all' },
      { id: blank, email: '', extra_data: null, add_method: 'api', permission: 'all' },
      { id: gone, email: 'gone@old.example', extra_data: null, add_method: 'api', permission: 'all' },
    ]);
    const { rows: contacts } = await db().query(
      `SELECT customer_id, type, value, is_main FROM customer_contacts WHERE installation_id = $1 ORDER BY id`,
      [site.id],
    );
    expect(contacts).toEqual([{ customer_id: first, type: 'email', value: 'Ada@Old.example', is_main: true }]);
    // the deferred uniqueness holds from now on
    await expect(
      db().query(
        `INSERT INTO customer_contacts (installation_id, customer_id, type, value) VALUES ($1, $2, 'email', 'ADA@old.example')`,
        [site.id, twin],
      ),
    ).rejects.toMatchObject({ code: '23P01', constraint: 'customer_contacts_value_key' });
  });
});
