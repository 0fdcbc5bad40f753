// Migration 0008 on a database that has data: business hours written before it (their zone a text
// id) come out naming the catalogue's integer id, a zone the catalogue did not list joins it, and
// nothing is lost. Applied with drizzle's own migrator, as `drizzle-kit migrate` applies it.
import { describe, expect, it } from 'vitest';
import { databaseBefore } from '../support/migration-db';

const database = databaseBefore('0008_events_timezones');

describe('migration 0008', () => {
  it('gives every business hours the catalogue id of its zone, adding the zones it did not list', async () => {
    const {
      rows: [site],
    } = await database
      .client()
      .query(`INSERT INTO installations (name, site_name) VALUES ('Old', 'old-site') RETURNING id`);
    const { rows: hours } = await database.client().query(
      `INSERT INTO business_hours (installation_id, name, timezone_id, timezone_name) VALUES
         ($1, 'Dublin', 'Europe/Dublin', 'Europe/Dublin'),
         ($1, 'Eastern', 'US/Eastern', 'US/Eastern'),
         ($1, 'Also eastern', 'US/Eastern', 'US/Eastern'),
         ($1, 'Plain', 'UTC', 'UTC')
       RETURNING id, name`,
      [site.id],
    );
    await database
      .client()
      .query(
        `INSERT INTO business_hours_schedules (installation_id, businesshours_id, day, start_hour, end_hour) VALUES ($1, $2, 1, '09:00', '17:00')`,
        [site.id, hours[0].id],
      );

    await database.migrateToLatest();

    const { rows: zones } = await database
      .client()
      .query(`SELECT id, name FROM timezones WHERE name IN ('UTC', 'Europe/Dublin', 'US/Eastern') ORDER BY id`);
    const idOf: Record<string, number> = Object.fromEntries(
      zones.map((zone: { id: number; name: string }) => [zone.name, zone.id]),
    );
    expect(idOf.UTC).toBe(1);
    expect(idOf['Europe/Dublin']).toBeLessThan(idOf['US/Eastern']!);
    const { rows: after } = await database
      .client()
      .query(`SELECT name, timezone_id, timezone_name FROM business_hours ORDER BY id`);
    expect(after).toEqual([
      { name: 'Dublin', timezone_id: idOf['Europe/Dublin'], timezone_name: 'Europe/Dublin' },
      { name: 'Eastern', timezone_id: idOf['US/Eastern'], timezone_name: 'US/Eastern' },
      { name: 'Also eastern', timezone_id: idOf['US/Eastern'], timezone_name: 'US/Eastern' },
      { name: 'Plain', timezone_id: 1, timezone_name: 'UTC' },
    ]);
    const {
      rows: [schedules],
    } = await database
      .client()
      .query(`SELECT count(*)::int AS n FROM business_hours_schedules WHERE businesshours_id = $1`, [hours[0].id]);
    expect(schedules.n).toBe(1);
    // The catalogue's sequence goes on after the seeded ids and the zones the migration added.
    const {
      rows: [next],
    } = await database.client().query(`INSERT INTO timezones (name) VALUES ('Test/Next') RETURNING id`);
    expect(next.id).toBeGreaterThan(idOf['US/Eastern']!);
    // The events tables are there, empty.
    const {
      rows: [events],
    } = await database.client().query(`SELECT count(*)::int AS n FROM events`);
    expect(events.n).toBe(0);
  });
});
