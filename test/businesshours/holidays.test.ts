// `/v2/businesshoursholidays...`: the contract, the date rules (also against the stored other
// date on PATCH), the parent reference within the installation, date filters, access, bad input.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectIgnored } from '../support/ignored';
import {
  expectErrorBody,
  expectIncludes,
  expectListAccepts,
  expectListRefuses,
  expectPagination,
  NOT_AN_OBJECT,
  refusals,
  zoneId,
} from './support';

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
const ids = { hours: 0, otherHours: 0, deletedHours: 0, theirHours: 0, holiday: 0, theirHoliday: 0 };
const LIST = '/v2/businesshoursholidays.json';
const one = (id: number) => `/v2/businesshoursholidays/${id}.json`;
const rejects = refusals(
  () => [site, other],
  () => admin,
);

async function createHours(key: string, name: string): Promise<number> {
  const response = await api('/v2/businesshours.json', {
    method: 'POST',
    key,
    body: { name, timezone_name: 'America/New_York' },
  });
  expect(response.status, response.text).toBe(201);
  expect(response.body.businesshour.timezoneId).toBe(await zoneId('America/New_York'));
  return response.body.businesshour.id;
}

async function createHoliday(body: Record<string, unknown>, key = admin) {
  const response = await api(LIST, { method: 'POST', key, body: { businesshoursholiday: body } });
  expect(response.status, response.text).toBe(201);
  return response.body.businesshoursholiday;
}

const storedRow = async (id: number) =>
  (
    await rows(
      `SELECT name, start_date::text, end_date::text, businesshours_id, state FROM business_hours_holidays WHERE id = $1`,
      [id],
    )
  )[0];

beforeAll(async () => {
  site = await newInstallation('bhh');
  other = await newInstallation('bhh-other');
  admin = site.users.admin.apiKey;
  ids.hours = await createHours(admin, 'Main');
  ids.otherHours = await createHours(admin, 'Second');
  ids.deletedHours = await createHours(admin, 'Deleted');
  expect((await api(`/v2/businesshours/${ids.deletedHours}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
  ids.theirHours = await createHours(other.users.admin.apiKey, 'Theirs');
  ids.holiday = (
    await createHoliday({
      businesshours_id: ids.hours,
      name: 'Christmas',
      startDate: '2025-12-25',
      endDate: '2025-12-26',
    })
  ).id;
  ids.theirHoliday = (
    await createHoliday(
      { businesshours_id: ids.theirHours, name: 'Theirs', startDate: '2025-12-25', endDate: '2025-12-25' },
      other.users.admin.apiKey,
    )
  ).id;
  await createHoliday({
    businesshours_id: ids.otherHours,
    name: 'Independence Day',
    startDate: '2025-07-04',
    endDate: '2025-07-04',
  });
  await createHoliday({
    businesshours_id: ids.hours,
    name: 'Summer break',
    startDate: '2025-08-01',
    endDate: '2025-08-15',
  });
});

describe('CRUD', () => {
  it('creates: 201 wrapped as businesshoursholiday, dates as YYYY-MM-DD', async () => {
    const response = await api(LIST, {
      method: 'POST',
      key: site.users.owner.apiKey,
      body: {
        businesshoursholiday: {
          businesshours_id: ids.hours,
          name: ' Leap day ',
          startDate: '2028-02-29',
          endDate: '2028-02-29',
        },
      },
    });
    expect(response.status, response.text).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(['businesshoursholiday', 'included']);
    expect(response.body.businesshoursholiday).toMatchObject({
      type: 'businesshoursholidays',
      businesshours_id: ids.hours,
      name: 'Leap day',
      startDate: '2028-02-29',
      endDate: '2028-02-29',
      state: 'active',
      createdBy: { id: site.users.owner.id, type: 'users' },
    });
    expect(await storedRow(response.body.businesshoursholiday.id)).toEqual({
      name: 'Leap day',
      start_date: '2028-02-29',
      end_date: '2028-02-29',
      businesshours_id: ids.hours,
      state: 'active',
    });
  });

  it('gets: 200 wrapped; 404 for another installation’s or an unknown id', async () => {
    const response = await api(one(ids.holiday), { key: site.users.collaborator.apiKey });
    expect(response.status).toBe(200);
    expect(response.body.businesshoursholiday).toMatchObject({
      id: ids.holiday,
      name: 'Christmas',
      startDate: '2025-12-25',
      endDate: '2025-12-26',
    });
    expect(response.body.included).toEqual({});
    expectErrorBody(await api(one(ids.theirHoliday), { key: admin }), 404, 'id');
    expectErrorBody(await api(one(2_000_000_000), { key: admin }), 404, 'id');
  });

  it('lists: plural wrapper with meta.page, the caller’s installation only', async () => {
    const response = await api(LIST, { key: site.users.agent.apiKey, query: { pageSize: 1 } });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['businesshoursholidays', 'included', 'meta', 'pagination']);
    expect(response.body.businesshoursholidays).toHaveLength(1);
    expect(response.body.meta.page).toMatchObject({ page: 1, pageSize: 1, hasMore: true });
    expect(response.body.pagination).toMatchObject({ page: 1, pageSize: 1, hasMorePages: true });
    expectPagination(response.body);
    const all = await api(LIST, { key: admin, query: { pageSize: 100 } });
    expect(all.body.businesshoursholidays.map((h: { id: number }) => h.id)).not.toContain(ids.theirHoliday);
  });

  it('PATCH changes exactly what is sent; PUT means the same', async () => {
    const holiday = await createHoliday({
      businesshours_id: ids.hours,
      name: 'Easter',
      startDate: '2026-04-03',
      endDate: '2026-04-06',
    });
    const patched = await api(one(holiday.id), {
      method: 'PATCH',
      key: admin,
      body: { businesshoursholiday: { endDate: '2026-04-03' } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.businesshoursholiday).toMatchObject({
      name: 'Easter',
      startDate: '2026-04-03',
      endDate: '2026-04-03',
    });
    const put = await api(one(holiday.id), {
      method: 'PUT',
      key: admin,
      body: { name: 'Good Friday', businesshours_id: ids.otherHours },
    });
    expect(put.status, put.text).toBe(200);
    expect(await storedRow(holiday.id)).toEqual({
      name: 'Good Friday',
      start_date: '2026-04-03',
      end_date: '2026-04-03',
      businesshours_id: ids.otherHours,
      state: 'active',
    });
  });

  it('deletes: 204 with no body, then 404', async () => {
    const holiday = await createHoliday({
      businesshours_id: ids.hours,
      name: 'Temporary',
      startDate: '2026-01-02',
      endDate: '2026-01-02',
    });
    const response = await api(one(holiday.id), { method: 'DELETE', key: admin });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expectErrorBody(await api(one(holiday.id), { key: admin }), 404, 'id');
    await rejects(one(holiday.id), { method: 'DELETE' }, 404, 'id');
    await rejects(one(ids.theirHoliday), { method: 'DELETE' }, 404, 'id');
  });

  it('has no bulk routes', async () => {
    await rejects(
      '/v2/businesshoursholidays/update.json',
      { method: 'PATCH', query: { filter: { name: 'Christmas' } }, body: { name: 'x' } },
      400,
      'id',
    );
    await rejects(
      '/v2/businesshoursholidays/delete.json',
      { method: 'DELETE', query: { filter: { name: 'Christmas' } } },
      400,
      'id',
    );
    const { paths } = (await api('/v2/openapi.json')).body;
    expect(Object.keys(paths['/v2/businesshoursholidays.json']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/v2/businesshoursholidays/{id}.json']).sort()).toEqual(['delete', 'get', 'patch', 'put']);
  });
});

describe('list names', () => {
  it('accepts every filter and orderBy name of part 2 and refuses others', async () => {
    await expectListAccepts(LIST, admin, {
      createdAt: { $lt: '2999-01-01' },
      createdBy: site.users.admin.id,
      deletedAt: null,
      deletedBy: null,
      updatedAt: { $gt: '2000-01-01T00:00:00Z' },
      updatedBy: 1,
      state: 'active',
      id: ids.holiday,
      businesshours_id: ids.hours,
      endDate: '2025-12-26',
      name: 'Christmas',
      startDate: '2025-12-25',
    });
    await expectListRefuses(LIST, admin, ['date', 'businesshours', 'start_date', 'day', 'installationId']);
  });

  it('filters by dates, name and parent', async () => {
    const names = async (filter: object, orderBy = 'startDate') => {
      const response = await api(LIST, { key: admin, query: { filter, orderBy, pageSize: 100 } });
      expect(response.status, response.text).toBe(200);
      return response.body.businesshoursholidays.map((h: { name: string }) => h.name);
    };
    expect(await names({ startDate: { $gte: '2025-07-01', $lte: '2025-08-31' } })).toEqual([
      'Independence Day',
      'Summer break',
    ]);
    expect(await names({ endDate: { $in: ['2025-12-26', '2025-07-04'] } })).toEqual(['Independence Day', 'Christmas']);
    expect(await names({ $or: [{ startDate: '2025-12-25' }, { name: { $contains: 'SUMMER' } }] })).toEqual([
      'Summer break',
      'Christmas',
    ]);
    expect(await names({ businesshours_id: ids.otherHours, startDate: { $lt: '2026-01-01' } })).toEqual([
      'Independence Day',
    ]);
  });

  it('refuses a filter that is not a date on the date names, naming it', async () => {
    const cases: [object, string][] = [
      [{ startDate: { $contains: '12' } }, 'filter.startDate'],
      [{ endDate: { $contains: '2025' } }, 'filter.endDate'],
      [{ startDate: 'Christmas' }, 'filter.startDate'],
      [{ startDate: '2025-02-30' }, 'filter.startDate'],
      [{ endDate: { $gte: '2025-13-01' } }, 'filter.endDate'],
      [{ endDate: { $in: ['2025-12-26', '26/12/2025'] } }, 'filter.endDate'],
      [{ $or: [{ name: 'x' }, { $and: [{ startDate: { $ne: 'soon' } }] }] }, 'filter.startDate'],
      [{ startDate: 20251225 }, 'filter.startDate'],
    ];
    for (const [filter, source] of cases) {
      expectErrorBody(await api(LIST, { key: admin, query: { filter } }), 400, source);
    }
  });

  it('accepts includes users and all, and refuses others', async () => {
    await expectIncludes(LIST, admin, ['users'], ['businesshours', 'businesshoursschedules']);
    await expectIncludes(one(ids.holiday), admin, ['users'], ['triggers']);
  });
});

describe('rules', () => {
  const bad: [string, Record<string, unknown>, string][] = [
    ["startDate: '2025-02-30'", { startDate: '2025-02-30' }, 'startDate'],
    ["startDate: '2025-13-01'", { startDate: '2025-13-01' }, 'startDate'],
    ["startDate: '0000-01-01'", { startDate: '0000-01-01' }, 'startDate'],
    ["startDate: '25/12/2025'", { startDate: '25/12/2025' }, 'startDate'],
    ['startDate as a date-time', { startDate: '2025-12-25T00:00:00Z' }, 'startDate'],
    ['startDate: 20251225', { startDate: 20251225 }, 'startDate'],
    ["endDate: '2025-12-32'", { endDate: '2025-12-32' }, 'endDate'],
    ['endDate: null', { endDate: null }, 'endDate'],
    ['endDate before startDate', { startDate: '2025-12-27', endDate: '2025-12-26' }, 'endDate'],
    ['name: 5', { name: 5 }, 'name'],
    ['a blank name', { name: ' ' }, 'name'],
    ['a name over 255 characters', { name: 'n'.repeat(256) }, 'name'],
  ];
  for (const [what, properties, property] of bad) {
    it(`answers 400 naming ${property} for ${what}`, async () => {
      const source = `businesshoursholiday.${property}`;
      await rejects(
        LIST,
        {
          method: 'POST',
          body: {
            businesshours_id: ids.hours,
            name: 'Bad',
            startDate: '2025-12-25',
            endDate: '2025-12-26',
            ...properties,
          },
        },
        400,
        source,
      );
      await rejects(one(ids.holiday), { method: 'PATCH', body: { businesshoursholiday: properties } }, 400, source);
      await rejects(one(ids.holiday), { method: 'PUT', body: properties }, 400, source);
    });
  }

  it('checks a change of one date against the other as stored (400, never 500)', async () => {
    // stored: 2025-12-25 to 2025-12-26
    await rejects(
      one(ids.holiday),
      { method: 'PATCH', body: { endDate: '2025-12-24' } },
      400,
      'businesshoursholiday.endDate',
    );
    await rejects(
      one(ids.holiday),
      { method: 'PATCH', body: { startDate: '2025-12-27' } },
      400,
      'businesshoursholiday.startDate',
    );
    const sameDay = await api(one(ids.holiday), { method: 'PATCH', key: admin, body: { startDate: '2025-12-26' } });
    expect(sameDay.status, sameDay.text).toBe(200);
    const back = await api(one(ids.holiday), { method: 'PATCH', key: admin, body: { startDate: '2025-12-25' } });
    expect(back.status, back.text).toBe(200);
  });

  it('needs business hours that are live and of the same installation', async () => {
    const base = { name: 'Orphan', startDate: '2025-01-01', endDate: '2025-01-01' };
    const source = 'businesshoursholiday.businesshours_id';
    await rejects(LIST, { method: 'POST', body: base }, 400, source);
    await rejects(LIST, { method: 'POST', body: { ...base, businesshours_id: ids.theirHours } }, 400, source);
    await rejects(LIST, { method: 'POST', body: { ...base, businesshours_id: ids.deletedHours } }, 400, source);
    await rejects(LIST, { method: 'POST', body: { ...base, businesshours_id: 2_000_000_000 } }, 400, source);
    await rejects(LIST, { method: 'POST', body: { ...base, businesshours_id: 1.5 } }, 400, source);
    await rejects(one(ids.holiday), { method: 'PATCH', body: { businesshours_id: ids.theirHours } }, 400, source);
  });
});

describe('bad input', () => {
  for (const [what, text, source] of NOT_AN_OBJECT('businesshoursholiday')) {
    it(`answers 400 to ${what}`, async () => {
      for (const [method, path] of [
        ['POST', LIST],
        ['PATCH', one(ids.holiday)],
        ['PUT', one(ids.holiday)],
      ] as const) {
        await rejects(path, { method, body: text, headers: { 'content-type': 'application/json' } }, 400, source);
      }
    });
  }

  it('ignores an unknown property, naming it in X-Ignored-Properties, and answers 400 naming each missing required one', async () => {
    const made = await api(LIST, {
      method: 'POST',
      key: admin,
      body: {
        businesshours_id: ids.hours,
        name: 'Ignoring',
        startDate: '2025-01-01',
        endDate: '2025-01-01',
        date: '2025-02-02',
      },
    });
    expectIgnored(made, ['businesshoursholiday.date']);
    const id = made.body.businesshoursholiday.id as number;
    expectIgnored(await api(one(id), { method: 'PATCH', key: admin, body: { recurring: true } }), [
      'businesshoursholiday.recurring',
    ]);
    expect(
      JSON.stringify(await rows(`SELECT to_jsonb(h) AS row FROM business_hours_holidays h WHERE id = $1`, [id])),
    ).not.toMatch(/2025-02-02|recurring/);
    expect((await api(one(id), { method: 'DELETE', key: admin })).status).toBe(204);
    for (const missing of ['businesshours_id', 'name', 'startDate', 'endDate']) {
      const body: Record<string, unknown> = {
        businesshours_id: ids.hours,
        name: 'x',
        startDate: '2025-01-01',
        endDate: '2025-01-01',
      };
      delete body[missing];
      await rejects(LIST, { method: 'POST', body }, 400, `businesshoursholiday.${missing}`);
    }
  });

  it('answers 404 for another installation’s holiday, which stays as it was', async () => {
    for (const method of ['PATCH', 'PUT'] as const)
      await rejects(one(ids.theirHoliday), { method, body: { name: 'Mine now' } }, 404, 'id');
  });

  it('answers 403 to agents and collaborators, changing nothing', async () => {
    for (const role of ['agent', 'collaborator'] as const) {
      const key = site.users[role].apiKey;
      await rejects(
        LIST,
        {
          key,
          method: 'POST',
          body: { businesshours_id: ids.hours, name: 'x', startDate: '2025-01-01', endDate: '2025-01-01' },
        },
        403,
      );
      await rejects(one(ids.holiday), { key, method: 'PATCH', body: { name: 'x' } }, 403);
      await rejects(one(ids.holiday), { key, method: 'PUT', body: { name: 'x' } }, 403);
      await rejects(one(ids.holiday), { key, method: 'DELETE' }, 403);
    }
  });
});
