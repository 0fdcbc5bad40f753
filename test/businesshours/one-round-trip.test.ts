// Business hours, their schedules and holidays are created and updated in one exchange with the
// database (one HTTP batch, no WebSocket connection): the time zone looked up by id or by name
// (a zone not listed yet added) in that exchange, the hours and dates in order against what is
// stored, each refusal the 400 or 404 it always was with nothing written, no zone added
// (docs/connection-strategy.md, "Writes in one round trip").
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { withRoundTrips } from '../support/round-trips';
import { catalogueId, snapshot, UTC, zoneId } from './support';

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
let dublin: number;

beforeAll(async () => {
  site = await newInstallation('bh-trips');
  other = await newInstallation('bh-trips-other');
  admin = site.users.admin.apiKey;
  dublin = await zoneId('Europe/Dublin');
  // each credential is looked up once, then remembered: the writes below are the write alone
  await api('/v2/businesshours.json', { key: admin });
  await api('/v2/businesshours.json', { key: other.users.admin.apiKey });
});

const write = (path: string, method: string, body: unknown, key = admin) => withRoundTrips(path, { method, key, body });
const hours = (id: number) => `/v2/businesshours/${id}.json`;
const unchanged = () => snapshot([site.id, other.id]);

/** A refusal in one exchange: its one error, and every row as it was. */
async function refusedInOneTrip(
  path: string,
  method: string,
  body: unknown,
  status: number,
  error: Record<string, string>,
) {
  const before = await unchanged();
  const { answer, trips } = await write(path, method, body);
  expect(answer.status, answer.text).toBe(status);
  expect(answer.body.errors).toEqual([error]);
  expect(trips).toBe(1);
  expect(await unchanged()).toEqual(before);
}

describe('business hours in one round trip', () => {
  it('creates hours in a zone not listed yet, with schedules, holidays and the default, in one exchange; the zone joins the catalogue', async () => {
    const zone = 'Etc/GMT-3';
    expect(await catalogueId(zone)).toBeUndefined();
    const { answer, trips } = await write('/v2/businesshours.json', 'POST', {
      businesshour: {
        name: 'Far office',
        timezone_name: zone,
        isDefault: true,
        businesshoursschedules: [
          { day: 1, startHour: '09:00', endHour: '17:00' },
          { day: 2, startHour: '09:00', endHour: '12:00' },
        ],
        businesshoursholidays: [{ name: 'Closed', startDate: '2026-12-24', endDate: '2026-12-26' }],
      },
    });
    expect(answer.status, answer.text).toBe(201);
    expect(trips).toBe(1);
    const id = await catalogueId(zone);
    expect(answer.body.businesshour).toMatchObject({
      name: 'Far office',
      isDefault: true,
      timezoneId: id,
      timezone_name: zone,
    });
    expect(answer.body.businesshour.businesshoursschedules).toHaveLength(2);
    expect(answer.body.businesshour.businesshoursholidays).toHaveLength(1);
    const events = await rows<{ record_type: string; n: number }>(
      `SELECT record_type, count(*)::int AS n FROM events WHERE installation_id = $1 AND kind = 'created' AND record_type LIKE 'businesshours%' GROUP BY 1 ORDER BY 1`,
      [site.id],
    );
    expect(events).toEqual([
      { record_type: 'businesshours', n: 1 },
      { record_type: 'businesshoursholidays', n: 1 },
      { record_type: 'businesshoursschedules', n: 2 },
    ]);
  });

  it("creates by zone id and updates the zone by name and a schedule's one hour, one exchange each", async () => {
    const made = await write('/v2/businesshours.json', 'POST', {
      businesshour: {
        name: 'By id',
        timezoneId: dublin,
        businesshoursschedules: [{ day: 3, startHour: '09:00', endHour: '17:00' }],
      },
    });
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(1);
    expect(made.answer.body.businesshour).toMatchObject({ timezoneId: dublin, timezone_name: 'Europe/Dublin' });
    const id = made.answer.body.businesshour.id as number;
    const schedule = made.answer.body.businesshour.businesshoursschedules[0].id as number;

    const moved = await write(hours(id), 'PATCH', {
      businesshour: { timezone_name: 'utc', businesshoursschedules: [{ id: schedule, endHour: '18:30' }] },
    });
    expect(moved.answer.status, moved.answer.text).toBe(200);
    expect(moved.trips).toBe(1);
    expect(moved.answer.body.businesshour).toMatchObject({ timezoneId: UTC, timezone_name: 'UTC' });
    expect(await rows('SELECT start_hour, end_hour FROM business_hours_schedules WHERE id = $1', [schedule])).toEqual([
      { start_hour: '09:00', end_hour: '18:30' },
    ]);
    const [changed] = await rows<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE record_type = 'businesshours' AND record_id = $1 AND kind = 'updated'`,
      [id],
    );
    expect(changed!.data).toMatchObject({
      timezoneId: { before: dublin, after: UTC },
      timezone_name: { before: 'Europe/Dublin', after: 'UTC' },
    });
  });

  it("refuses an unknown zone id, a name that is another zone, hours out of order as stored, and another installation's hours, in the same exchange, writing nothing", async () => {
    const kept = (
      await api('/v2/businesshours.json', {
        method: 'POST',
        key: admin,
        body: {
          name: 'Kept',
          timezoneId: UTC,
          businesshoursschedules: [{ day: 1, startHour: '09:00', endHour: '17:00' }],
        },
      })
    ).body.businesshour;
    const schedule = kept.businesshoursschedules[0].id as number;
    await refusedInOneTrip(
      '/v2/businesshours.json',
      'POST',
      { businesshour: { name: 'Nowhere', timezoneId: 2_000_000_000 } },
      400,
      {
        code: 'invalid',
        source: 'businesshour.timezoneId',
        detail: 'no time zone 2000000000; the ids are listed at /v2/timezones.json',
      },
    );
    await refusedInOneTrip(
      hours(kept.id),
      'PATCH',
      { businesshour: { timezoneId: dublin, timezone_name: 'Europe/London' } },
      400,
      {
        code: 'invalid',
        source: 'businesshour.timezone_name',
        detail: `must name the same time zone as timezoneId (${dublin} is Europe/Dublin); send either, or both alike`,
      },
    );
    await refusedInOneTrip(
      hours(kept.id),
      'PATCH',
      {
        businesshour: {
          name: 'Renamed',
          businesshoursschedules: [
            { day: 2, startHour: '08:00', endHour: '09:00' },
            { id: schedule, startHour: '17:30' },
          ],
        },
      },
      400,
      {
        code: 'invalid',
        source: 'businesshour.businesshoursschedules[1].startHour',
        detail: 'must be before endHour (17:00)',
      },
    );
    const theirs = (
      await api('/v2/businesshours.json', {
        method: 'POST',
        key: other.users.admin.apiKey,
        body: { name: 'Theirs', timezoneId: UTC },
      })
    ).body.businesshour.id as number;
    await refusedInOneTrip(hours(theirs), 'PATCH', { businesshour: { name: 'Taken' } }, 404, {
      code: 'notFound',
      source: 'id',
      detail: `businesshour ${theirs} not found`,
    });
  });

  it('adds no zone when the write is refused', async () => {
    const zone = 'Etc/GMT+7';
    await refusedInOneTrip(
      '/v2/businesshours.json',
      'POST',
      {
        businesshour: {
          name: 'Bad week',
          timezone_name: zone,
          businesshoursschedules: [{ day: 1, startHour: '10:00', endHour: '09:00' }],
        },
      },
      400,
      {
        code: 'invalid',
        source: 'businesshour.businesshoursschedules[0].endHour',
        detail: 'must be after startHour (10:00)',
      },
    );
    expect(await catalogueId(zone)).toBeUndefined();
    // a create naming no zone is refused in the Worker, before any exchange
    const zoneless = await write('/v2/businesshours.json', 'POST', { businesshour: { name: 'Zoneless' } });
    expect(zoneless.answer.status).toBe(400);
    expect(zoneless.trips).toBe(0);
  });
});

describe('schedules and holidays in one round trip', () => {
  let parent: number;

  beforeAll(async () => {
    parent = (
      await api('/v2/businesshours.json', { method: 'POST', key: admin, body: { name: 'Parent', timezoneId: UTC } })
    ).body.businesshour.id;
  });

  it('creates and changes one hour of a schedule, and one date of a holiday, one exchange each', async () => {
    const cases = [
      [
        'businesshoursschedules',
        'businesshoursschedule',
        { businesshours: { id: parent }, day: 4, startHour: '09:00', endHour: '17:00' },
        { startHour: '10:00' },
        { startHour: '10:00', endHour: '17:00' },
      ],
      [
        'businesshoursholidays',
        'businesshoursholiday',
        { businesshours_id: parent, name: 'Break', startDate: '2026-12-24', endDate: '2026-12-24' },
        { endDate: '2026-12-31' },
        { startDate: '2026-12-24', endDate: '2026-12-31' },
      ],
    ] as const;
    for (const [type, wrapper, created, change, after] of cases) {
      const made = await write(`/v2/${type}.json`, 'POST', { [wrapper]: created });
      expect(made.answer.status, made.answer.text).toBe(201);
      expect(made.trips).toBe(1);
      const changed = await write(`/v2/${type}/${made.answer.body[wrapper].id}.json`, 'PATCH', { [wrapper]: change });
      expect(changed.answer.status, changed.answer.text).toBe(200);
      expect(changed.trips).toBe(1);
      expect(changed.answer.body[wrapper]).toMatchObject(after);
    }
  });

  it("refuses an hour or a date out of order with the one stored, and another installation's business hours, in the same exchange, writing nothing", async () => {
    const schedule = (
      await api('/v2/businesshoursschedules.json', {
        method: 'POST',
        key: admin,
        body: { businesshours_id: parent, day: 5, startHour: '09:00', endHour: '17:00' },
      })
    ).body.businesshoursschedule.id;
    const holiday = (
      await api('/v2/businesshoursholidays.json', {
        method: 'POST',
        key: admin,
        body: { businesshours_id: parent, name: 'Eve', startDate: '2026-12-24', endDate: '2026-12-25' },
      })
    ).body.businesshoursholiday.id;
    await refusedInOneTrip(
      `/v2/businesshoursschedules/${schedule}.json`,
      'PATCH',
      { businesshoursschedule: { endHour: '08:00' } },
      400,
      { code: 'invalid', source: 'businesshoursschedule.endHour', detail: 'must be after startHour (09:00)' },
    );
    await refusedInOneTrip(
      `/v2/businesshoursholidays/${holiday}.json`,
      'PATCH',
      { businesshoursholiday: { startDate: '2026-12-26' } },
      400,
      { code: 'invalid', source: 'businesshoursholiday.startDate', detail: 'must not be after endDate (2026-12-25)' },
    );
    await refusedInOneTrip(
      '/v2/businesshoursholidays.json',
      'POST',
      {
        businesshoursholiday: {
          businesshours_id: parent,
          name: 'Backwards',
          startDate: '2026-12-24',
          endDate: '2026-12-23',
        },
      },
      400,
      { code: 'invalid', source: 'businesshoursholiday.endDate', detail: 'must not be before startDate (2026-12-24)' },
    );
    const theirs = (
      await api('/v2/businesshours.json', {
        method: 'POST',
        key: other.users.admin.apiKey,
        body: { name: 'Theirs too', timezoneId: UTC },
      })
    ).body.businesshour.id as number;
    await refusedInOneTrip(
      '/v2/businesshoursschedules.json',
      'POST',
      { businesshoursschedule: { businesshours_id: theirs, day: 1, startHour: '09:00', endHour: '17:00' } },
      400,
      { code: 'invalid', source: 'businesshoursschedule.businesshours_id', detail: `no businesshours ${theirs} here` },
    );
  });
});

describe('a delete of business hours in one round trip', () => {
  it("deletes the hours with their schedules and holidays, each with its event, in one exchange; another installation's are a 404 from it", async () => {
    const made = await write('/v2/businesshours.json', 'POST', {
      businesshour: {
        name: 'To delete',
        timezoneId: UTC,
        businesshoursschedules: [{ day: 1, startHour: '09:00', endHour: '17:00' }],
        businesshoursholidays: [{ name: 'Off', startDate: '2026-12-31', endDate: '2026-12-31' }],
      },
    });
    expect(made.answer.status, made.answer.text).toBe(201);
    const id = made.answer.body.businesshour.id as number;
    const theirs = await api('/v2/businesshours.json', {
      method: 'POST',
      key: other.users.admin.apiKey,
      body: { businesshour: { name: 'Theirs', timezoneId: UTC } },
    });
    expect(theirs.status, theirs.text).toBe(201);
    const before = await unchanged();
    await api('/v2/businesshours.json', { key: admin });
    const refused = await write(hours(theirs.body.businesshour.id), 'DELETE', undefined);
    expect(refused.answer.status, refused.answer.text).toBe(404);
    expect(refused.trips).toBe(1);
    expect(await unchanged()).toEqual(before);
    await api('/v2/businesshours.json', { key: admin });
    const deleted = await write(hours(id), 'DELETE', undefined);
    expect(deleted.answer.status, deleted.answer.text).toBe(204);
    expect(deleted.trips).toBe(1);
    const events = await rows<{ record_type: string; n: number }>(
      `SELECT record_type, count(*)::int AS n FROM events WHERE installation_id = $1 AND kind = 'deleted' AND (record_id = $2 OR data->'parent'->>'id' = $2::text) GROUP BY 1 ORDER BY 1`,
      [site.id, id],
    );
    expect(events).toEqual([
      { record_type: 'businesshours', n: 1 },
      { record_type: 'businesshoursholidays', n: 1 },
      { record_type: 'businesshoursschedules', n: 1 },
    ]);
  });
});
