// `/v2/businesshours...`: the contract (statuses, wrappers, list names of part 2), the time zone
// (an integer id of the `/v2/timezones.json` catalogue and its IANA name) and default rules, the
// schedules and holidays written inside, the cascading delete, access.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { db, newInstallation, rows } from '../support/db';
import { expectIgnored } from '../support/ignored';
import {
  catalogueId,
  expectErrorBody,
  expectIncludes,
  expectListAccepts,
  expectListRefuses,
  expectPagination,
  NOT_AN_OBJECT,
  refusals,
  UTC,
  zoneId,
} from './support';

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
const LIST = '/v2/businesshours.json';
const one = (id: number) => `/v2/businesshours/${id}.json`;
const rejects = refusals(
  () => [site, other],
  () => admin,
);

async function createHours(body: Record<string, unknown>, key = admin, query = '') {
  const response = await api(`${LIST}${query}`, { method: 'POST', key, body: { businesshour: body } });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** The catalogue ids of the seeded zones the tests use, looked up once. */
const zones = { dublin: 0, london: 0, newYork: 0, lordHowe: 0, perth: 0, tokyo: 0, paris: 0 };

const liveDefaults = async (installation: number) =>
  (
    await rows<{ id: number }>(
      `SELECT id FROM business_hours WHERE installation_id = $1 AND is_default AND state = 'active' ORDER BY id`,
      [installation],
    )
  ).map((r) => r.id);

beforeAll(async () => {
  site = await newInstallation('bh');
  other = await newInstallation('bh-other');
  admin = site.users.admin.apiKey;
  zones.dublin = await zoneId('Europe/Dublin');
  zones.london = await zoneId('Europe/London');
  zones.newYork = await zoneId('America/New_York');
  zones.lordHowe = await zoneId('Australia/Lord_Howe');
  zones.perth = await zoneId('Australia/Perth');
  zones.tokyo = await zoneId('Asia/Tokyo');
  zones.paris = await zoneId('Europe/Paris');
});

describe('create', () => {
  it('answers 201 with the record wrapped as businesshour, both zone names set', async () => {
    const body = await createHours({
      name: 'Dublin office',
      description: 'Front desk',
      timezone_name: 'Europe/Dublin',
    });
    expect(Object.keys(body).sort()).toEqual(['businesshour', 'included']);
    expect(body.businesshour).toMatchObject({
      type: 'businesshours',
      name: 'Dublin office',
      description: 'Front desk',
      isDefault: false,
      timezoneId: zones.dublin,
      timezone_name: 'Europe/Dublin',
      state: 'active',
      createdBy: { id: site.users.admin.id, type: 'users' },
      updatedBy: { id: site.users.admin.id, type: 'users' },
    });
    expect(body.businesshour.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(body.businesshour).not.toHaveProperty('deletedAt');
    expect(body.included).toEqual({});
    expect(Number.isInteger(body.businesshour.timezoneId)).toBe(true);
    const [row] = await rows(
      `SELECT installation_id, timezone_id, timezone_name, is_default FROM business_hours WHERE id = $1`,
      [body.businesshour.id],
    );
    expect(row).toEqual({
      installation_id: site.id,
      timezone_id: zones.dublin,
      timezone_name: 'Europe/Dublin',
      is_default: false,
    });
    const read = await api(one(body.businesshour.id), { key: admin });
    expect(read.body.businesshour).toMatchObject({ timezoneId: zones.dublin, timezone_name: 'Europe/Dublin' });
  });

  it('takes the zone from the integer timezoneId alone, from timezone_name alone, or from both when they agree', async () => {
    const byId = await createHours({ name: 'Perth', timezoneId: zones.perth });
    expect(byId.businesshour).toMatchObject({ timezoneId: zones.perth, timezone_name: 'Australia/Perth' });
    const [row] = await rows(`SELECT timezone_id, timezone_name FROM business_hours WHERE id = $1`, [
      byId.businesshour.id,
    ]);
    expect(row).toEqual({ timezone_id: zones.perth, timezone_name: 'Australia/Perth' });
    const byName = await createHours({ name: 'Kolkata', timezone_name: 'Asia/Kolkata' });
    expect(byName.businesshour).toMatchObject({
      timezoneId: await zoneId('Asia/Kolkata'),
      timezone_name: 'Asia/Kolkata',
    });
    const both = await createHours({
      name: 'Lord Howe',
      timezoneId: zones.lordHowe,
      timezone_name: 'Australia/Lord_Howe',
    });
    expect(both.businesshour).toMatchObject({ timezoneId: zones.lordHowe, timezone_name: 'Australia/Lord_Howe' });
  });

  it('spells a zone as the zone list does, whatever the case sent, and finds it in the catalogue', async () => {
    const both = await createHours({
      name: 'Lower case',
      timezoneId: zones.newYork,
      timezone_name: 'AMERICA/NEW_YORK',
    });
    expect(both.businesshour).toMatchObject({ timezoneId: zones.newYork, timezone_name: 'America/New_York' });
    const byName = await createHours({ name: 'Lowercase only', timezone_name: 'america/new_york' });
    expect(byName.businesshour).toMatchObject({ timezoneId: zones.newYork, timezone_name: 'America/New_York' });
    expect(await catalogueId('america/new_york')).toBeUndefined();
  });

  it('accepts a bare body, and the read-only properties a client sends back', async () => {
    const bare = await api(LIST, { method: 'POST', key: admin, body: { name: 'Bare', timezoneId: UTC } });
    expect(bare.status, bare.text).toBe(201);
    const echoed = await api(LIST, {
      method: 'POST',
      key: admin,
      body: {
        businesshour: { ...bare.body.businesshour, id: 0, name: 'Echo', triggers: [{ id: 1, type: 'triggers' }] },
        included: {},
        meta: {},
      },
    });
    expect(echoed.status, echoed.text).toBe(201);
    expect(echoed.body.businesshour.id).not.toBe(bare.body.businesshour.id);
    expect(echoed.body.businesshour.name).toBe('Echo');
    expect(echoed.body.businesshour).toMatchObject({ timezoneId: UTC, timezone_name: 'UTC' });
  });

  it('creates the schedules and holidays sent with it, and includes them', async () => {
    const body = await createHours({
      name: 'Week',
      timezoneId: zones.dublin,
      businesshoursschedules: [
        { day: 1, startHour: '09:00', endHour: '17:00' },
        { day: 2, startHour: '08:30', endHour: '24:00' },
      ],
      businesshoursholidays: [{ name: 'Christmas', startDate: '2025-12-25', endDate: '2025-12-26' }],
    });
    const hours = body.businesshour;
    expect(hours.businesshoursschedules).toHaveLength(2);
    expect(hours.businesshoursholidays).toEqual([{ id: expect.any(Number), type: 'businesshoursholidays' }]);
    expect(body.included.businesshoursschedules[1]).toMatchObject({
      type: 'businesshoursschedules',
      businesshours_id: hours.id,
      day: 2,
      startHour: '08:30',
      endHour: '24:00',
    });
    expect(body.included.businesshoursholidays[0]).toMatchObject({
      businesshours_id: hours.id,
      name: 'Christmas',
      startDate: '2025-12-25',
      endDate: '2025-12-26',
    });
    const children = await rows(
      `SELECT installation_id, created_by FROM business_hours_schedules WHERE businesshours_id = $1`,
      [hours.id],
    );
    expect(children).toEqual([
      { installation_id: site.id, created_by: site.users.admin.id },
      { installation_id: site.id, created_by: site.users.admin.id },
    ]);
  });
});

describe('get and list', () => {
  it('reads one record wrapped as businesshour; 404 when absent or another installation’s', async () => {
    const { businesshour } = await createHours({ name: 'Readable', timezoneId: UTC });
    const response = await api(one(businesshour.id), { key: site.users.collaborator.apiKey });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ businesshour, included: {} });
    const theirs = await createHours({ name: 'Theirs', timezoneId: UTC }, other.users.admin.apiKey);
    expectErrorBody(await api(one(theirs.businesshour.id), { key: admin }), 404, 'id');
    expectErrorBody(await api(one(2_000_000_000), { key: admin }), 404, 'id');
    expectErrorBody(await api('/v2/businesshours/abc.json', { key: admin }), 400, 'id');
  });

  it('lists as businesshours with meta.page, only the caller’s installation', async () => {
    const response = await api(LIST, { key: site.users.agent.apiKey, query: { pageSize: 2 } });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['businesshours', 'included', 'meta', 'pagination']);
    expect(response.body.businesshours).toHaveLength(2);
    const [count] = await rows<{ n: number }>(
      `SELECT count(*)::int AS n FROM business_hours WHERE installation_id = $1 AND state = 'active'`,
      [site.id],
    );
    expect(response.body.meta.page).toEqual({
      page: 1,
      pageSize: 2,
      pageOffset: 0,
      count: count!.n,
      pages: Math.ceil(count!.n / 2),
      hasMore: true,
    });
    expect(response.body.pagination).toEqual({
      records: count!.n,
      pageSize: 2,
      pages: Math.ceil(count!.n / 2),
      page: 1,
      hasMorePages: true,
    });
    const last = await api(LIST, { key: admin, query: { pageSize: 2, page: Math.ceil(count!.n / 2) } });
    expect(last.body.pagination).toMatchObject({ page: Math.ceil(count!.n / 2), hasMorePages: false });
    expectPagination(last.body);
    const all = await api(LIST, { key: admin, query: { pageSize: 100 } });
    expect(all.body.businesshours.every((h: { name: string }) => h.name !== 'Theirs')).toBe(true);
  });

  it('accepts every filter and orderBy name of part 2, and refuses others naming them', async () => {
    await expectListAccepts(LIST, admin, {
      createdAt: '2020-01-01',
      createdBy: site.users.admin.id,
      deletedAt: null,
      deletedBy: null,
      updatedAt: { $gte: '2020-01-01' },
      updatedBy: site.users.admin.id,
      state: 'active',
      id: 1,
      description: 'Front desk',
      isDefault: false,
      name: 'Week',
      timezoneId: zones.dublin,
      timezone_name: 'Europe/Dublin',
    });
    await expectListRefuses(LIST, admin, [
      'timezone',
      'timezone_id',
      'businesshoursschedules',
      'installationId',
      'is_default',
      'type',
    ]);
  });

  it('filters timezoneId as an integer: a zone name there is a 400 naming filter.timezoneId', async () => {
    for (const value of ['Europe/Dublin', { $in: ['Europe/Dublin'] }, { $gte: 'Europe' }, 1.5, true]) {
      const entry = expectErrorBody(
        await api(LIST, { key: admin, query: { filter: { timezoneId: value } } }),
        400,
        'filter.timezoneId',
      );
      expect(entry.detail).toMatch(/integer/);
    }
    // Digits in a string are an integer to every integer filter, this one too.
    const byNumber = await api(LIST, { key: admin, query: { filter: { timezoneId: zones.dublin } } });
    const byDigits = await api(LIST, { key: admin, query: { filter: { timezoneId: String(zones.dublin) } } });
    expect(byDigits.status, byDigits.text).toBe(200);
    expect(byDigits.body.businesshours).toEqual(byNumber.body.businesshours);
    expect(byNumber.body.businesshours.length).toBeGreaterThan(0);
  });

  it('filters and orders by the business hours names', async () => {
    const names = async (query: Record<string, string | object>) => {
      const response = await api(LIST, { key: admin, query: { pageSize: 100, ...query } });
      expect(response.status, response.text).toBe(200);
      return response.body.businesshours.map((h: { name: string }) => h.name);
    };
    const kolkata = await zoneId('Asia/Kolkata');
    expect(await names({ filter: { timezoneId: kolkata } })).toEqual(['Kolkata']);
    expect(await names({ filter: { timezone_name: 'Asia/Kolkata' } })).toEqual(['Kolkata']);
    expect(await names({ filter: { timezoneId: { $in: [zones.lordHowe, zones.perth] } }, orderBy: 'name' })).toEqual([
      'Lord Howe',
      'Perth',
    ]);
    expect(
      await names({ filter: { timezone_name: { $in: ['Australia/Lord_Howe', 'America/New_York'] } }, orderBy: 'name' }),
    ).toEqual(['Lord Howe', 'Lower case', 'Lowercase only']);
    expect(await names({ filter: { description: { $contains: 'front' } } })).toEqual(['Dublin office']);
    expect(await names({ filter: { name: { $contains: 'o' }, timezoneId: zones.lordHowe } })).toEqual(['Lord Howe']);
    expect(await names({ filter: { timezoneId: 2_000_000_000 } })).toEqual([]);
    // orderBy timezoneId orders by the catalogue's integer ids, not by the names.
    const picked = { Kolkata: kolkata, 'Lord Howe': zones.lordHowe, 'Dublin office': zones.dublin, Perth: zones.perth };
    const byId = Object.keys(picked).sort(
      (a, b) => picked[a as keyof typeof picked] - picked[b as keyof typeof picked],
    );
    const byZone = await names({ orderBy: 'timezoneId', filter: { name: { $in: Object.keys(picked) } } });
    expect(byZone).toEqual(byId);
    expect(
      await names({ orderBy: 'timezoneId', orderMode: 'desc', filter: { name: { $in: Object.keys(picked) } } }),
    ).toEqual([...byId].reverse());
    const byName = await names({ orderBy: 'timezone_name', filter: { name: { $in: Object.keys(picked) } } });
    expect(byName).toEqual(['Kolkata', 'Lord Howe', 'Perth', 'Dublin office']);
  });

  it('accepts the includes of part 2 and refuses others naming includes', async () => {
    await expectIncludes(
      LIST,
      admin,
      ['businesshoursholidays', 'businesshoursschedules', 'triggers', 'users'],
      ['schedules', 'holidays', 'inboxes', 'files'],
    );
    const { businesshour } = await createHours({ name: 'Includable', timezoneId: UTC });
    await expectIncludes(
      one(businesshour.id),
      admin,
      ['businesshoursholidays', 'businesshoursschedules', 'triggers', 'users'],
      ['trigger'],
    );
  });

  it('includes the triggers that use the hours, in any state but deleted', async () => {
    const { businesshour } = await createHours({ name: 'Triggered', timezoneId: UTC });
    const { businesshour: unused } = await createHours({ name: 'Untriggered', timezoneId: UTC });
    const made = await rows<{ id: number }>(
      `INSERT INTO triggers (installation_id, name, businesshours_id, state) VALUES
       ($1, 'Escalate', $2, 'active'), ($1, 'Draft', $2, 'incomplete'), ($1, 'Paused', $2, 'inactive'), ($1, 'Gone', $2, 'deleted'), ($1, 'Elsewhere', $3, 'active')
       RETURNING id`,
      [site.id, businesshour.id, unused.id],
    );
    const response = await api(one(businesshour.id), { key: admin, query: { includes: 'triggers' } });
    expect(response.status).toBe(200);
    expect(response.body.businesshour.triggers).toEqual(made.slice(0, 3).map((t) => ({ id: t.id, type: 'triggers' })));
    expect(response.body.included.triggers.map((t: { name: string }) => t.name)).toEqual([
      'Escalate',
      'Draft',
      'Paused',
    ]);
    // a trigger's own `type` is its kind, as the platform has it (`/v2/triggers.json`)
    expect(response.body.included.triggers[0]).toMatchObject({
      type: 'Automatic',
      name: 'Escalate',
      businesshours: { id: businesshour.id, type: 'businesshours' },
      state: 'active',
    });
  });

  it('includes users: who created and changed the record', async () => {
    const { businesshour } = await createHours({ name: 'Users', timezoneId: UTC }, site.users.owner.apiKey);
    await api(one(businesshour.id), { method: 'PATCH', key: admin, body: { description: 'changed' } });
    const response = await api(one(businesshour.id), { key: admin, query: { includes: 'users' } });
    expect(response.body.included.users.map((u: { id: number }) => u.id).sort()).toEqual(
      [site.users.owner.id, site.users.admin.id].sort(),
    );
    expect(response.body.businesshour).not.toHaveProperty('users');
  });
});

describe('update', () => {
  it('PATCH changes exactly what is sent, PUT means the same', async () => {
    const { businesshour } = await createHours({ name: 'Patchable', description: 'keep', timezoneId: zones.dublin });
    const patched = await api(one(businesshour.id), {
      method: 'PATCH',
      key: admin,
      body: { businesshour: { name: 'Patched' } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.businesshour).toMatchObject({
      name: 'Patched',
      description: 'keep',
      timezoneId: zones.dublin,
      timezone_name: 'Europe/Dublin',
    });
    const put = await api(one(businesshour.id), {
      method: 'PUT',
      key: site.users.owner.apiKey,
      body: { description: null },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.businesshour).toMatchObject({
      name: 'Patched',
      description: null,
      updatedBy: { id: site.users.owner.id, type: 'users' },
    });
  });

  it('keeps the two zone names together when one changes', async () => {
    const { businesshour } = await createHours({ name: 'Moving', timezone_name: 'Europe/Dublin' });
    const byId = await api(one(businesshour.id), { method: 'PATCH', key: admin, body: { timezoneId: zones.newYork } });
    expect(byId.status, byId.text).toBe(200);
    expect(byId.body.businesshour).toMatchObject({ timezoneId: zones.newYork, timezone_name: 'America/New_York' });
    const byName = await api(one(businesshour.id), {
      method: 'PATCH',
      key: admin,
      body: { timezone_name: 'Asia/Tokyo' },
    });
    expect(byName.status, byName.text).toBe(200);
    expect(byName.body.businesshour).toMatchObject({ timezoneId: zones.tokyo, timezone_name: 'Asia/Tokyo' });
    const both = await api(one(businesshour.id), {
      method: 'PUT',
      key: admin,
      body: { timezoneId: zones.paris, timezone_name: 'Europe/Paris' },
    });
    expect(both.status, both.text).toBe(200);
    expect(both.body.businesshour).toMatchObject({ timezoneId: zones.paris, timezone_name: 'Europe/Paris' });
    const back = await api(one(businesshour.id), { method: 'PATCH', key: admin, body: { timezoneId: zones.tokyo } });
    expect(back.body.businesshour).toMatchObject({ timezoneId: zones.tokyo, timezone_name: 'Asia/Tokyo' });
    await rejects(
      one(businesshour.id),
      { method: 'PATCH', body: { timezoneId: zones.paris, timezone_name: 'Europe/Berlin' } },
      400,
      'businesshour.timezone_name',
    );
    await rejects(
      one(businesshour.id),
      { method: 'PATCH', body: { timezoneId: 2_000_000_000 } },
      400,
      'businesshour.timezoneId',
    );
    await rejects(
      one(businesshour.id),
      { method: 'PATCH', body: { timezoneId: 'Europe/Paris' } },
      400,
      'businesshour.timezoneId',
    );
    await rejects(
      one(businesshour.id),
      { method: 'PATCH', body: { timezone_name: 'Europe/Atlantis' } },
      400,
      'businesshour.timezone_name',
    );
    const [row] = await rows(`SELECT timezone_id, timezone_name FROM business_hours WHERE id = $1`, [businesshour.id]);
    expect(row).toEqual({ timezone_id: zones.tokyo, timezone_name: 'Asia/Tokyo' });
    const read = await api(one(businesshour.id), { key: admin });
    expect(read.body.businesshour).toMatchObject({ timezoneId: zones.tokyo, timezone_name: 'Asia/Tokyo' });
  });

  it('adds, changes and removes schedules and holidays through the relation', async () => {
    const created = await createHours({
      name: 'Nested',
      timezoneId: UTC,
      businesshoursschedules: [
        { day: 1, startHour: '09:00', endHour: '17:00' },
        { day: 2, startHour: '09:00', endHour: '17:00' },
      ],
      businesshoursholidays: [{ name: 'New Year', startDate: '2026-01-01', endDate: '2026-01-01' }],
    });
    const [monday, tuesday] = created.businesshour.businesshoursschedules;
    const holiday = created.businesshour.businesshoursholidays[0];
    const response = await api(one(created.businesshour.id), {
      method: 'PATCH',
      key: admin,
      body: {
        businesshoursschedules: [
          { id: monday.id, endHour: '18:00' },
          { id: tuesday.id, delete: true },
          { day: 3, startHour: '10:00', endHour: '12:00' },
        ],
        businesshoursholidays: [{ id: holiday.id, type: 'businesshoursholidays' }],
      },
    });
    expect(response.status, response.text).toBe(200);
    const schedules = response.body.included.businesshoursschedules.map((s: Record<string, unknown>) => [
      s.day,
      s.startHour,
      s.endHour,
    ]);
    expect(schedules).toEqual([
      [1, '09:00', '18:00'],
      [3, '10:00', '12:00'],
    ]);
    expect(response.body.included.businesshoursholidays).toHaveLength(1);
    const [deleted] = await rows(`SELECT state, deleted_by FROM business_hours_schedules WHERE id = $1`, [tuesday.id]);
    expect(deleted).toEqual({ state: 'deleted', deleted_by: site.users.admin.id });
  });
});

describe('zones joining the catalogue', () => {
  const catalogueMax = async () => (await rows<{ max: number }>('SELECT max(id)::int AS max FROM timezones'))[0]!.max;
  const listed = async (name: string) =>
    (await api('/v2/timezones.json', { key: admin, query: { filter: { name } } })).body.timezones;

  it('a valid zone not yet listed joins with a new id, which then reads back the same everywhere', async () => {
    const zone = 'Asia/Kathmandu';
    expect(await listed(zone)).toEqual([]);
    const before = await catalogueMax();
    const seeded = { dublin: await zoneId('Europe/Dublin'), utc: await zoneId('UTC') };

    const first = await createHours({ name: 'Kathmandu', timezone_name: zone });
    const id = first.businesshour.timezoneId;
    expect(Number.isInteger(id)).toBe(true);
    expect(id).toBeGreaterThan(before);
    expect(first.businesshour.timezone_name).toBe(zone);
    expect(await listed(zone)).toEqual([expect.objectContaining({ id, type: 'timezones', name: zone })]);
    const record = await api(`/v2/timezones/${id}.json`, { key: site.users.collaborator.apiKey });
    expect(record.status, record.text).toBe(200);
    expect(record.body.timezone).toMatchObject({ id, type: 'timezones', name: zone, state: 'active' });

    // The same zone named again, by name or by its new id, in this installation or another: the same id.
    const again = await createHours({ name: 'Kathmandu again', timezone_name: zone });
    expect(again.businesshour).toMatchObject({ timezoneId: id, timezone_name: zone });
    const byId = await createHours({ name: 'Kathmandu by id', timezoneId: id });
    expect(byId.businesshour).toMatchObject({ timezoneId: id, timezone_name: zone });
    const theirs = await createHours({ name: 'Kathmandu elsewhere', timezone_name: zone }, other.users.admin.apiKey);
    expect(theirs.businesshour).toMatchObject({ timezoneId: id, timezone_name: zone });
    expect(await rows('SELECT id FROM timezones WHERE name = $1', [zone])).toEqual([{ id }]);

    // Read back, stored and filtered like any other zone; the seeded ids did not move.
    const read = await api(one(first.businesshour.id), { key: admin });
    expect(read.body.businesshour).toMatchObject({ timezoneId: id, timezone_name: zone });
    expect(
      await rows(`SELECT timezone_id, timezone_name FROM business_hours WHERE id = $1`, [first.businesshour.id]),
    ).toEqual([{ timezone_id: id, timezone_name: zone }]);
    const filtered = await api(LIST, { key: admin, query: { filter: { timezoneId: id }, orderBy: 'name' } });
    expect(filtered.body.businesshours.map((h: { name: string }) => h.name)).toEqual([
      'Kathmandu',
      'Kathmandu again',
      'Kathmandu by id',
    ]);
    expect({ dublin: await zoneId('Europe/Dublin'), utc: await zoneId('UTC') }).toEqual(seeded);

    // A PATCH may move hours to a zone not listed yet, too.
    expect(await catalogueId('Etc/GMT+5')).toBeUndefined();
    const moved = await api(one(first.businesshour.id), {
      method: 'PATCH',
      key: admin,
      body: { timezone_name: 'Etc/GMT+5' },
    });
    expect(moved.status, moved.text).toBe(200);
    const gmtPlus5 = await zoneId('Etc/GMT+5');
    expect(gmtPlus5).toBeGreaterThan(id);
    expect(moved.body.businesshour).toMatchObject({ timezoneId: gmtPlus5, timezone_name: 'Etc/GMT+5' });
  });

  it('an alias joins as it is spelt, with an id of its own; its spellings in other cases are that one row', async () => {
    const zone = 'US/Eastern';
    expect(await listed(zone)).toEqual([]);
    const { businesshour } = await createHours({ name: 'Eastern', timezone_name: zone });
    expect(businesshour.timezone_name).toBe(zone);
    expect(businesshour.timezoneId).toBe(await zoneId(zone));
    expect(businesshour.timezoneId).not.toBe(zones.newYork);
    const lower = await createHours({ name: 'eastern', timezone_name: 'us/eastern' });
    expect(lower.businesshour).toMatchObject({ timezoneId: businesshour.timezoneId, timezone_name: zone });
    const utc = await createHours({ name: 'utc', timezone_name: 'utc' });
    expect(utc.businesshour).toMatchObject({ timezoneId: UTC, timezone_name: 'UTC' });
    expect(await rows(`SELECT count(*)::int AS n FROM timezones WHERE lower(name) IN ('us/eastern', 'utc')`)).toEqual([
      { n: 2 },
    ]);
  });

  it('a refused write adds no zone to the catalogue', async () => {
    const zone = 'Asia/Yangon';
    expect(await catalogueId(zone)).toBeUndefined();
    await rejects(
      LIST,
      { method: 'POST', body: { name: 'Torn', timezoneId: zones.dublin, timezone_name: zone } },
      400,
      'businesshour.timezone_name',
    );
    await rejects(
      LIST,
      {
        method: 'POST',
        body: {
          name: 'Bad week',
          timezone_name: zone,
          businesshoursschedules: [{ day: 1, startHour: '10:00', endHour: '09:00' }],
        },
      },
      400,
      'businesshour.businesshoursschedules[0].endHour',
    );
    await rejects(
      LIST,
      { method: 'POST', key: site.users.agent.apiKey, body: { name: 'Not allowed', timezone_name: zone } },
      403,
    );
    expect(await catalogueId(zone)).toBeUndefined();
    expect(await listed(zone)).toEqual([]);
  });

  it('the database keeps the id and the name to one catalogue row (business_hours_timezone_fk)', async () => {
    const { businesshour } = await createHours({ name: 'Constrained', timezoneId: UTC });
    await expect(
      db().query(`UPDATE business_hours SET timezone_name = 'Europe/Dublin' WHERE id = $1`, [businesshour.id]),
    ).rejects.toMatchObject({ constraint: 'business_hours_timezone_fk' });
    await expect(
      db().query(`UPDATE business_hours SET timezone_id = 2000000000 WHERE id = $1`, [businesshour.id]),
    ).rejects.toMatchObject({ constraint: 'business_hours_timezone_fk' });
    expect(
      await rows(`SELECT timezone_id, timezone_name FROM business_hours WHERE id = $1`, [businesshour.id]),
    ).toEqual([{ timezone_id: UTC, timezone_name: 'UTC' }]);
  });

  it('several writes naming the same unlisted zone at once all succeed, with one id', async () => {
    const zone = 'Asia/Ho_Chi_Minh';
    expect(await catalogueId(zone)).toBeUndefined();
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api(LIST, { method: 'POST', key: admin, body: { name: `Saigon ${i}`, timezone_name: zone } }),
      ),
    );
    expect(
      responses.map((r) => r.status),
      responses.map((r) => r.text).join('\n'),
    ).toEqual(Array(8).fill(201));
    expect(new Set(responses.map((r) => r.body.businesshour.timezoneId))).toEqual(new Set([await zoneId(zone)]));
  });
});

describe('the default business hours', () => {
  it('moves the default: a new default clears the previous one in the same write', async () => {
    const fresh = await newInstallation('bh-default');
    const key = fresh.users.owner.apiKey;
    const first = await createHours({ name: 'First', timezoneId: UTC, isDefault: true }, key);
    expect(await liveDefaults(fresh.id)).toEqual([first.businesshour.id]);
    const second = await createHours({ name: 'Second', timezoneId: UTC, isDefault: true }, key);
    expect(second.businesshour.isDefault).toBe(true);
    expect(await liveDefaults(fresh.id)).toEqual([second.businesshour.id]);
    const [cleared] = await rows(`SELECT is_default, updated_by FROM business_hours WHERE id = $1`, [
      first.businesshour.id,
    ]);
    expect(cleared).toEqual({ is_default: false, updated_by: fresh.users.owner.id });

    const back = await api(one(first.businesshour.id), { method: 'PATCH', key, body: { isDefault: true } });
    expect(back.status, back.text).toBe(200);
    expect(await liveDefaults(fresh.id)).toEqual([first.businesshour.id]);
    // Saying it again changes nothing else.
    await api(one(first.businesshour.id), { method: 'PUT', key, body: { isDefault: true, name: 'First again' } });
    expect(await liveDefaults(fresh.id)).toEqual([first.businesshour.id]);

    // Unsetting leaves no default; a deleted default does not count.
    await api(one(first.businesshour.id), { method: 'PATCH', key, body: { isDefault: false } });
    expect(await liveDefaults(fresh.id)).toEqual([]);
    await api(one(second.businesshour.id), { method: 'PATCH', key, body: { isDefault: true } });
    expect((await api(one(second.businesshour.id), { method: 'DELETE', key })).status).toBe(204);
    const third = await createHours({ name: 'Third', timezoneId: UTC, isDefault: true }, key);
    expect(await liveDefaults(fresh.id)).toEqual([third.businesshour.id]);
  });

  it('keeps one default when several writes make one at the same moment: none fails', async () => {
    const fresh = await newInstallation('bh-default-race');
    const key = fresh.users.admin.apiKey;
    const existing = await createHours({ name: 'Existing', timezoneId: UTC }, key);
    const responses = await Promise.all([
      ...Array.from({ length: 5 }, (_, i) =>
        api(LIST, { method: 'POST', key, body: { name: `Racer ${i}`, timezoneId: UTC, isDefault: true } }),
      ),
      api(one(existing.businesshour.id), { method: 'PATCH', key, body: { isDefault: true } }),
    ]);
    expect(responses.map((r) => r.status).sort()).toEqual([200, 201, 201, 201, 201, 201]);
    expect(await liveDefaults(fresh.id)).toHaveLength(1);
  });

  it('leaves other installations’ defaults alone', async () => {
    const mine = await newInstallation('bh-default-a');
    const theirs = await newInstallation('bh-default-b');
    const theirDefault = await createHours(
      { name: 'Theirs', timezoneId: UTC, isDefault: true },
      theirs.users.admin.apiKey,
    );
    await createHours({ name: 'Mine', timezoneId: UTC, isDefault: true }, mine.users.admin.apiKey);
    expect(await liveDefaults(theirs.id)).toEqual([theirDefault.businesshour.id]);
  });

  it('a refused write that would make a default clears nothing', async () => {
    const fresh = await newInstallation('bh-default-refused');
    const key = fresh.users.admin.apiKey;
    const current = await createHours({ name: 'Current', timezoneId: UTC, isDefault: true }, key);
    const theirs = await createHours({ name: 'Not yours', timezoneId: UTC }, other.users.admin.apiKey);
    const check = refusals(
      () => [fresh, other],
      () => key,
    );
    await check(one(theirs.businesshour.id), { method: 'PATCH', body: { isDefault: true } }, 404, 'id');
    await check(
      LIST,
      { method: 'POST', body: { name: 'Broken', timezone_name: 'Nowhere/Land', isDefault: true } },
      400,
      'businesshour.timezone_name',
    );
    await check(
      LIST,
      { method: 'POST', body: { name: 'Broken', timezoneId: 2_000_000_000, isDefault: true } },
      400,
      'businesshour.timezoneId',
    );
    await check(
      LIST,
      { method: 'POST', body: { name: 'Broken', timezoneId: UTC, timezone_name: 'Europe/Dublin', isDefault: true } },
      400,
      'businesshour.timezone_name',
    );
    await check(
      LIST,
      {
        method: 'POST',
        body: {
          name: 'Bad week',
          timezoneId: UTC,
          isDefault: true,
          businesshoursschedules: [{ day: 1, startHour: '10:00', endHour: '09:00' }],
        },
      },
      400,
      'businesshour.businesshoursschedules[0].endHour',
    );
    expect(await liveDefaults(fresh.id)).toEqual([current.businesshour.id]);
  });
});

describe('delete', () => {
  it('answers 204, takes the schedules and holidays along, leaves triggers', async () => {
    const created = await createHours({
      name: 'Doomed',
      timezoneId: UTC,
      businesshoursschedules: [{ day: 1, startHour: '09:00', endHour: '17:00' }],
      businesshoursholidays: [{ name: 'Day off', startDate: '2026-05-01', endDate: '2026-05-01' }],
    });
    const id = created.businesshour.id;
    const [trigger] = await rows<{ id: number }>(
      `INSERT INTO triggers (installation_id, name, businesshours_id) VALUES ($1, 'Uses it', $2) RETURNING id`,
      [site.id, id],
    );
    const response = await api(one(id), { method: 'DELETE', key: admin });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expectErrorBody(await api(one(id), { key: admin }), 404, 'id');
    const listed = await api(LIST, { key: admin, query: { filter: { id } } });
    expect(listed.body.businesshours).toEqual([]);
    const deleted = await api(LIST, { key: admin, query: { filter: { id, state: 'deleted' } } });
    expect(deleted.body.businesshours[0]).toMatchObject({
      id,
      state: 'deleted',
      deletedBy: { id: site.users.admin.id, type: 'users' },
    });
    for (const table of ['business_hours_schedules', 'business_hours_holidays']) {
      expect(await rows(`SELECT state, deleted_by FROM ${table} WHERE businesshours_id = $1`, [id])).toEqual([
        { state: 'deleted', deleted_by: site.users.admin.id },
      ]);
    }
    const schedule = created.businesshour.businesshoursschedules[0].id;
    expectErrorBody(await api(`/v2/businesshoursschedules/${schedule}.json`, { key: admin }), 404, 'id');
    expect(await rows(`SELECT state, businesshours_id FROM triggers WHERE id = $1`, [trigger!.id])).toEqual([
      { state: 'active', businesshours_id: id },
    ]);
    await rejects(one(id), { method: 'DELETE' }, 404, 'id');
  });

  it('another installation’s id is a 404 that deletes nothing', async () => {
    const theirs = await createHours(
      {
        name: 'Theirs to keep',
        timezoneId: UTC,
        businesshoursschedules: [{ day: 1, startHour: '09:00', endHour: '17:00' }],
      },
      other.users.admin.apiKey,
    );
    await rejects(one(theirs.businesshour.id), { method: 'DELETE' }, 404, 'id');
  });
});

describe('no bulk operations', () => {
  it('has no update.json or delete.json: the path is not an id', async () => {
    await rejects(
      '/v2/businesshours/update.json',
      { method: 'PATCH', query: { filter: { name: 'Week' } }, body: { description: 'bulk' } },
      400,
      'id',
    );
    await rejects(
      '/v2/businesshours/delete.json',
      { method: 'DELETE', query: { filter: { name: 'Week' } } },
      400,
      'id',
    );
  });

  it('documents exactly the CRUD operations in the OpenAPI document', async () => {
    const { paths } = (await api('/v2/openapi.json')).body;
    expect(Object.keys(paths['/v2/businesshours.json']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/v2/businesshours/{id}.json']).sort()).toEqual(['delete', 'get', 'patch', 'put']);
    expect(paths['/v2/businesshours/update.json']).toBeUndefined();
    expect(paths['/v2/businesshours/delete.json']).toBeUndefined();
  });
});

describe('access: everyone reads, owners and admins write', () => {
  it('lets every role read', async () => {
    for (const role of ['owner', 'admin', 'agent', 'collaborator'] as const) {
      expect((await api(LIST, { key: site.users[role].apiKey })).status, role).toBe(200);
    }
  });

  it('refuses writes to agents and collaborators with 403, changing nothing', async () => {
    const { businesshour } = await createHours({ name: 'Guarded', timezoneId: UTC });
    for (const role of ['agent', 'collaborator'] as const) {
      const key = site.users[role].apiKey;
      await rejects(LIST, { key, method: 'POST', body: { name: 'Nope', timezoneId: UTC } }, 403);
      await rejects(one(businesshour.id), { key, method: 'PATCH', body: { name: 'Nope' } }, 403);
      await rejects(one(businesshour.id), { key, method: 'PUT', body: { name: 'Nope' } }, 403);
      await rejects(one(businesshour.id), { key, method: 'DELETE' }, 403);
    }
    expect(
      (
        await api(one(businesshour.id), {
          method: 'PATCH',
          key: site.users.owner.apiKey,
          body: { name: 'Owner was here' },
        })
      ).status,
    ).toBe(200);
  });

  it('answers 401 without a credential', async () => {
    expect((await api(LIST)).status).toBe(401);
  });
});

describe('bad input', () => {
  let target = 0;
  beforeAll(async () => {
    target = (await createHours({ name: 'Target', timezoneId: zones.dublin })).businesshour.id;
  });

  for (const [what, text, source] of NOT_AN_OBJECT('businesshour')) {
    it(`answers 400 to ${what} on POST, PATCH and PUT`, async () => {
      for (const [method, path] of [
        ['POST', LIST],
        ['PATCH', one(target)],
        ['PUT', one(target)],
      ] as const) {
        await rejects(path, { method, body: text, headers: { 'content-type': 'application/json' } }, 400, source);
      }
    });
  }

  // Entries that need catalogue ids are functions, called once the ids are looked up.
  const wrong: [string, Record<string, unknown> | (() => Record<string, unknown>), string][] = [
    ['name: 123', { name: 123 }, 'businesshour.name'],
    ['name: null', { name: null }, 'businesshour.name'],
    ['a blank name', { name: '  ' }, 'businesshour.name'],
    ['a name over 255 characters', { name: 'n'.repeat(256) }, 'businesshour.name'],
    ['description: 7', { description: 7 }, 'businesshour.description'],
    ["isDefault: 'yes'", { isDefault: 'yes' }, 'businesshour.isDefault'],
    ['isDefault: null', { isDefault: null }, 'businesshour.isDefault'],
    [
      "timezoneId: 'Europe/Dublin' (a name where the id goes)",
      { timezoneId: 'Europe/Dublin' },
      'businesshour.timezoneId',
    ],
    ["timezoneId: '1' (an id in a string)", { timezoneId: '1' }, 'businesshour.timezoneId'],
    ['timezoneId: null', { timezoneId: null }, 'businesshour.timezoneId'],
    ['timezoneId: true', { timezoneId: true }, 'businesshour.timezoneId'],
    ['timezoneId: 1.5', { timezoneId: 1.5 }, 'businesshour.timezoneId'],
    ['timezoneId: 0', { timezoneId: 0 }, 'businesshour.timezoneId'],
    ['timezoneId: -1', { timezoneId: -1 }, 'businesshour.timezoneId'],
    ['a timezoneId beyond the integer range', { timezoneId: 2 ** 31 }, 'businesshour.timezoneId'],
    ['a timezoneId not in the catalogue', { timezoneId: 2_000_000_000 }, 'businesshour.timezoneId'],
    ['an unknown zone', { timezone_name: 'Europe/Atlantis' }, 'businesshour.timezone_name'],
    ['an offset instead of a zone', { timezone_name: '+05:30' }, 'businesshour.timezone_name'],
    ['an empty zone', { timezone_name: '' }, 'businesshour.timezone_name'],
    ['a zone name with a NUL', { timezone_name: 'Europe/Dub\u0000lin' }, 'businesshour.timezone_name'],
    ['an unknown timezone_name', { timezone_name: 'GMT+5:30' }, 'businesshour.timezone_name'],
    ['timezone_name: null', { timezone_name: null }, 'businesshour.timezone_name'],
    ['timezone_name: 326 (an id where the name goes)', { timezone_name: 326 }, 'businesshour.timezone_name'],
    [
      'an id and a name of two different zones',
      () => ({ timezoneId: zones.dublin, timezone_name: 'Europe/London' }),
      'businesshour.timezone_name',
    ],
    [
      'a name with the id of another zone',
      () => ({ timezoneId: zones.london, timezone_name: 'europe/dublin' }),
      'businesshour.timezone_name',
    ],
    [
      'a valid id with an invalid name',
      { timezoneId: UTC, timezone_name: 'Mars/Olympus_Mons' },
      'businesshour.timezone_name',
    ],
    ['a schedule of the wrong shape', { businesshoursschedules: { day: 1 } }, 'businesshour.businesshoursschedules'],
    [
      'a schedule with a bad day',
      { businesshoursschedules: [{ day: 7, startHour: '09:00', endHour: '17:00' }] },
      'businesshour.businesshoursschedules[0].day',
    ],
    [
      'a schedule with a bad hour',
      { businesshoursschedules: [{ day: 1, startHour: '9:00', endHour: '17:00' }] },
      'businesshour.businesshoursschedules[0].startHour',
    ],
    [
      'a schedule ending before it starts',
      {
        businesshoursschedules: [
          { day: 1, startHour: '09:00', endHour: '17:00' },
          { day: 1, startHour: '17:00', endHour: '17:00' },
        ],
      },
      'businesshour.businesshoursschedules[1].endHour',
    ],
    [
      'a schedule missing its day',
      { businesshoursschedules: [{ startHour: '09:00', endHour: '17:00' }] },
      'businesshour.businesshoursschedules[0].day',
    ],
    [
      'a holiday with a bad date',
      { businesshoursholidays: [{ name: 'x', startDate: '2025-02-30', endDate: '2025-03-01' }] },
      'businesshour.businesshoursholidays[0].startDate',
    ],
    [
      'a holiday ending before it starts',
      { businesshoursholidays: [{ name: 'x', startDate: '2025-03-02', endDate: '2025-03-01' }] },
      'businesshour.businesshoursholidays[0].endDate',
    ],
    [
      'a holiday missing its end',
      { businesshoursholidays: [{ name: 'x', startDate: '2025-03-02' }] },
      'businesshour.businesshoursholidays[0].endDate',
    ],
  ];
  for (const [what, given, source] of wrong) {
    it(`answers 400 naming ${source} for ${what}`, async () => {
      const properties = typeof given === 'function' ? given() : given;
      await rejects(
        LIST,
        { method: 'POST', body: { businesshour: { name: 'Typed', timezoneId: UTC, ...properties } } },
        400,
        source,
      );
      await rejects(one(target), { method: 'PATCH', body: { businesshour: properties } }, 400, source);
      await rejects(one(target), { method: 'PUT', body: properties }, 400, source);
    });
  }

  it('ignores an unknown property, and a schedule naming its parent (the record it is written in), naming each in X-Ignored-Properties', async () => {
    const body = {
      colour: 'blue',
      businesshoursschedules: [{ businesshours_id: 1, day: 3, startHour: '08:00', endHour: '12:00' }],
    };
    const made = await api(LIST, {
      method: 'POST',
      key: admin,
      query: { includes: 'businesshoursschedules' },
      body: { businesshour: { name: 'Ignoring', timezoneId: UTC, ...body } },
    });
    expectIgnored(made, ['businesshour.businesshoursschedules[0].businesshours_id', 'businesshour.colour']);
    const id = made.body.businesshour.id as number;
    expect(
      await rows(`SELECT day, businesshours_id FROM business_hours_schedules WHERE businesshours_id = $1`, [id]),
    ).toEqual([{ day: 3, businesshours_id: id }]);
    expectIgnored(await api(one(id), { method: 'PATCH', key: admin, body: { businesshour: { colour: 'red' } } }), [
      'businesshour.colour',
    ]);
    expectIgnored(await api(one(id), { method: 'PUT', key: admin, body: { colour: 'red', description: 'd' } }), [
      'businesshour.colour',
    ]);
  });

  it('answers 400 naming the missing required properties on create', async () => {
    await rejects(LIST, { method: 'POST', body: { timezoneId: UTC } }, 400, 'businesshour.name');
    await rejects(LIST, { method: 'POST', body: { timezone_name: 'UTC' } }, 400, 'businesshour.name');
    const neither = await rejects(LIST, { method: 'POST', body: { name: 'Zoneless' } }, 400, 'businesshour.timezoneId');
    expect(neither!.detail).toMatch(/timezone_name/);
    await rejects(
      LIST,
      { method: 'POST', body: { name: 'Zoneless', description: 'x', isDefault: true } },
      400,
      'businesshour.timezoneId',
    );
  });

  it('names the catalogue when an id is not in it, and the other zone when id and name disagree', async () => {
    const unknown = await rejects(
      LIST,
      { method: 'POST', body: { name: 'Nowhere', timezoneId: 2_000_000_000 } },
      400,
      'businesshour.timezoneId',
    );
    expect(unknown!.detail).toContain('/v2/timezones.json');
    const disagree = await rejects(
      LIST,
      { method: 'POST', body: { name: 'Torn', timezoneId: zones.dublin, timezone_name: 'Europe/London' } },
      400,
      'businesshour.timezone_name',
    );
    expect(disagree!.detail).toContain('Europe/Dublin');
  });

  it('refuses a schedule or holiday entry that is not one of these hours', async () => {
    const sibling = await createHours({
      name: 'Sibling',
      timezoneId: UTC,
      businesshoursschedules: [{ day: 1, startHour: '09:00', endHour: '17:00' }],
      businesshoursholidays: [{ name: 'h', startDate: '2026-01-01', endDate: '2026-01-01' }],
    });
    const schedule = sibling.businesshour.businesshoursschedules[0].id;
    const holiday = sibling.businesshour.businesshoursholidays[0].id;
    await rejects(
      one(target),
      { method: 'PATCH', body: { businesshoursschedules: [{ id: schedule, endHour: '18:00' }] } },
      400,
      'businesshour.businesshoursschedules[0].id',
    );
    await rejects(
      one(target),
      { method: 'PATCH', body: { businesshoursschedules: [{ id: schedule, delete: true }] } },
      400,
      'businesshour.businesshoursschedules[0].id',
    );
    await rejects(
      one(target),
      { method: 'PATCH', body: { businesshoursholidays: [{ id: holiday, endDate: '2026-01-02' }] } },
      400,
      'businesshour.businesshoursholidays[0].id',
    );
    await rejects(
      LIST,
      { method: 'POST', body: { name: 'Thief', timezoneId: UTC, businesshoursschedules: [{ id: schedule }] } },
      400,
      'businesshour.businesshoursschedules[0].id',
    );
    // A change to one hour is checked against the other as stored.
    await rejects(
      one(sibling.businesshour.id),
      { method: 'PATCH', body: { businesshoursschedules: [{ id: schedule, startHour: '17:30' }] } },
      400,
      'businesshour.businesshoursschedules[0].startHour',
    );
    await rejects(
      one(sibling.businesshour.id),
      { method: 'PATCH', body: { businesshoursholidays: [{ id: holiday, endDate: '2025-12-31' }] } },
      400,
      'businesshour.businesshoursholidays[0].endDate',
    );
  });

  it('answers 404 for another installation’s record, which stays as it was', async () => {
    const theirs = await createHours({ name: 'Foreign', timezoneId: UTC }, other.users.admin.apiKey);
    for (const method of ['PATCH', 'PUT'] as const) {
      await rejects(one(theirs.businesshour.id), { method, body: { name: 'Taken over' } }, 404, 'id');
    }
    await rejects(
      one(theirs.businesshour.id),
      { method: 'PATCH', body: { businesshoursschedules: [{ day: 1, startHour: '09:00', endHour: '10:00' }] } },
      404,
      'id',
    );
  });

  it('answers 415 to a body that is not JSON', async () => {
    await rejects(
      LIST,
      { method: 'POST', body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      415,
    );
  });
});
