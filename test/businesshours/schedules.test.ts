// `/v2/businesshoursschedules...`: the contract, the hour rules (also against the stored other
// hour on PATCH), the parent reference within the installation, access and bad input.
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
  NOT_AN_OBJECT,
  refusals,
  zoneId,
} from './support';

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
const ids = { hours: 0, otherHours: 0, deletedHours: 0, theirHours: 0, schedule: 0, theirSchedule: 0 };
const LIST = '/v2/businesshoursschedules.json';
const one = (id: number) => `/v2/businesshoursschedules/${id}.json`;
const rejects = refusals(
  () => [site, other],
  () => admin,
);

async function createHours(key: string, name: string): Promise<number> {
  const response = await api('/v2/businesshours.json', {
    method: 'POST',
    key,
    body: { name, timezoneId: await zoneId('Europe/Dublin') },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.businesshour.id;
}

async function createSchedule(body: Record<string, unknown>, key = admin) {
  const response = await api(LIST, { method: 'POST', key, body: { businesshoursschedule: body } });
  expect(response.status, response.text).toBe(201);
  return response.body.businesshoursschedule;
}

const storedRow = async (id: number) =>
  (
    await rows(
      `SELECT day, start_hour, end_hour, businesshours_id, state FROM business_hours_schedules WHERE id = $1`,
      [id],
    )
  )[0];

beforeAll(async () => {
  site = await newInstallation('bhs');
  other = await newInstallation('bhs-other');
  admin = site.users.admin.apiKey;
  ids.hours = await createHours(admin, 'Main');
  ids.otherHours = await createHours(admin, 'Second');
  ids.deletedHours = await createHours(admin, 'Deleted');
  expect((await api(`/v2/businesshours/${ids.deletedHours}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
  ids.theirHours = await createHours(other.users.admin.apiKey, 'Theirs');
  ids.schedule = (
    await createSchedule({ businesshours_id: ids.hours, day: 1, startHour: '09:00', endHour: '17:00' })
  ).id;
  ids.theirSchedule = (
    await createSchedule(
      { businesshours_id: ids.theirHours, day: 1, startHour: '09:00', endHour: '17:00' },
      other.users.admin.apiKey,
    )
  ).id;
});

describe('CRUD', () => {
  it('creates: 201 wrapped as businesshoursschedule, businesshours_id an integer', async () => {
    const response = await api(LIST, {
      method: 'POST',
      key: site.users.owner.apiKey,
      body: { businesshoursschedule: { businesshours_id: ids.hours, day: 0, startHour: '00:00', endHour: '24:00' } },
    });
    expect(response.status, response.text).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(['businesshoursschedule', 'included']);
    expect(response.body.businesshoursschedule).toMatchObject({
      type: 'businesshoursschedules',
      businesshours_id: ids.hours,
      day: 0,
      startHour: '00:00',
      endHour: '24:00',
      state: 'active',
      createdBy: { id: site.users.owner.id, type: 'users' },
    });
    expect(await storedRow(response.body.businesshoursschedule.id)).toEqual({
      day: 0,
      start_hour: '00:00',
      end_hour: '24:00',
      businesshours_id: ids.hours,
      state: 'active',
    });
  });

  it('accepts a bare body', async () => {
    const schedule = await createSchedule({
      businesshours_id: ids.hours,
      day: 6,
      startHour: '23:59',
      endHour: '24:00',
    });
    expect(schedule.startHour).toBe('23:59');
  });

  it('gets: 200 wrapped; 404 for another installation’s or an unknown id', async () => {
    const response = await api(one(ids.schedule), { key: site.users.collaborator.apiKey });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['businesshoursschedule', 'included']);
    expect(response.body.businesshoursschedule).toMatchObject({
      id: ids.schedule,
      businesshours_id: ids.hours,
      day: 1,
    });
    expectErrorBody(await api(one(ids.theirSchedule), { key: admin }), 404, 'id');
    expectErrorBody(await api(one(2_000_000_000), { key: admin }), 404, 'id');
  });

  it('lists: plural wrapper with meta.page, the caller’s installation only', async () => {
    const response = await api(LIST, { key: site.users.agent.apiKey });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['businesshoursschedules', 'included', 'meta', 'pagination']);
    expect(response.body.meta.page).toMatchObject({
      page: 1,
      pageSize: 50,
      count: response.body.businesshoursschedules.length,
      hasMore: false,
    });
    expect(response.body.pagination).toEqual({
      records: response.body.businesshoursschedules.length,
      pageSize: 50,
      pages: 1,
      page: 1,
      hasMorePages: false,
    });
    expect(response.body.businesshoursschedules.map((s: { id: number }) => s.id)).not.toContain(ids.theirSchedule);
  });

  it('PATCH changes exactly what is sent; PUT means the same; it may move to other hours of the installation', async () => {
    const schedule = await createSchedule({
      businesshours_id: ids.hours,
      day: 2,
      startHour: '09:00',
      endHour: '17:00',
    });
    const patched = await api(one(schedule.id), {
      method: 'PATCH',
      key: admin,
      body: { businesshoursschedule: { endHour: '18:30' } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.businesshoursschedule).toMatchObject({
      day: 2,
      startHour: '09:00',
      endHour: '18:30',
      businesshours_id: ids.hours,
    });
    const put = await api(one(schedule.id), {
      method: 'PUT',
      key: admin,
      body: { businesshours_id: ids.otherHours, day: 3 },
    });
    expect(put.status, put.text).toBe(200);
    expect(await storedRow(schedule.id)).toEqual({
      day: 3,
      start_hour: '09:00',
      end_hour: '18:30',
      businesshours_id: ids.otherHours,
      state: 'active',
    });
  });

  it('deletes: 204 with no body, then 404', async () => {
    const schedule = await createSchedule({
      businesshours_id: ids.hours,
      day: 4,
      startHour: '09:00',
      endHour: '17:00',
    });
    const response = await api(one(schedule.id), { method: 'DELETE', key: admin });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expectErrorBody(await api(one(schedule.id), { key: admin }), 404, 'id');
    expect((await storedRow(schedule.id))!.state).toBe('deleted');
    await rejects(one(schedule.id), { method: 'DELETE' }, 404, 'id');
    await rejects(one(ids.theirSchedule), { method: 'DELETE' }, 404, 'id');
  });

  it('has no bulk routes', async () => {
    await rejects(
      '/v2/businesshoursschedules/update.json',
      { method: 'PATCH', query: { filter: { day: 1 } }, body: { day: 2 } },
      400,
      'id',
    );
    await rejects(
      '/v2/businesshoursschedules/delete.json',
      { method: 'DELETE', query: { filter: { day: 1 } } },
      400,
      'id',
    );
    const { paths } = (await api('/v2/openapi.json')).body;
    expect(Object.keys(paths['/v2/businesshoursschedules.json']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/v2/businesshoursschedules/{id}.json']).sort()).toEqual([
      'delete',
      'get',
      'patch',
      'put',
    ]);
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
      id: ids.schedule,
      businesshours_id: ids.hours,
      day: 1,
      endHour: '17:00',
      startHour: '09:00',
    });
    await expectListRefuses(LIST, admin, ['businesshours', 'businesshoursId', 'start_hour', 'name', 'installationId']);
  });

  it('filters by parent, day and hours', async () => {
    const days = async (filter: object) => {
      const response = await api(LIST, { key: admin, query: { filter, orderBy: 'day' } });
      expect(response.status, response.text).toBe(200);
      return response.body.businesshoursschedules.map((s: { day: number }) => s.day);
    };
    expect(await days({ businesshours_id: ids.hours, day: 1 })).toEqual([1]);
    expect(await days({ businesshours_id: ids.hours, startHour: { $gte: '23:00' } })).toEqual([6]);
    expect(await days({ businesshours_id: ids.hours, endHour: '24:00', day: { $in: [0, 6] } })).toEqual([0, 6]);
    expectErrorBody(await api(LIST, { key: admin, query: { filter: { day: 'monday' } } }), 400, 'filter.day');
  });

  it('accepts includes users and all, and refuses others', async () => {
    await expectIncludes(LIST, admin, ['users'], ['businesshours', 'triggers', 'businesshoursholidays']);
    await expectIncludes(one(ids.schedule), admin, ['users'], ['businesshours']);
    const response = await api(one(ids.schedule), { key: admin, query: { includes: 'users' } });
    expect(response.body.included.users.map((u: { id: number }) => u.id)).toEqual([site.users.admin.id]);
  });
});

describe('rules', () => {
  const bad: [string, Record<string, unknown>, string][] = [
    ['day: -1', { day: -1 }, 'day'],
    ['day: 7', { day: 7 }, 'day'],
    ['day: 1.5', { day: 1.5 }, 'day'],
    ["day: '1'", { day: '1' }, 'day'],
    ['day: null', { day: null }, 'day'],
    ["startHour: '9:00'", { startHour: '9:00' }, 'startHour'],
    ["startHour: '24:00'", { startHour: '24:00', endHour: '24:00' }, 'startHour'],
    ["startHour: '12:60'", { startHour: '12:60' }, 'startHour'],
    ["startHour: '09:00:00'", { startHour: '09:00:00' }, 'startHour'],
    ['startHour: 900', { startHour: 900 }, 'startHour'],
    ["endHour: '24:01'", { endHour: '24:01' }, 'endHour'],
    ["endHour: '25:00'", { endHour: '25:00' }, 'endHour'],
    ["endHour: 'noon'", { endHour: 'noon' }, 'endHour'],
    ['endHour equal to startHour', { startHour: '10:00', endHour: '10:00' }, 'endHour'],
    ['endHour before startHour', { startHour: '18:00', endHour: '09:00' }, 'endHour'],
    ['endHour 00:00', { startHour: '00:00', endHour: '00:00' }, 'endHour'],
  ];
  for (const [what, properties, property] of bad) {
    it(`answers 400 naming ${property} for ${what}`, async () => {
      const source = `businesshoursschedule.${property}`;
      await rejects(
        LIST,
        {
          method: 'POST',
          body: { businesshours_id: ids.hours, day: 1, startHour: '09:00', endHour: '17:00', ...properties },
        },
        400,
        source,
      );
      await rejects(one(ids.schedule), { method: 'PATCH', body: { businesshoursschedule: properties } }, 400, source);
      await rejects(one(ids.schedule), { method: 'PUT', body: properties }, 400, source);
    });
  }

  it('checks a change of one hour against the other as stored (400, never 500)', async () => {
    // stored: 09:00-17:00
    const endBefore = await rejects(
      one(ids.schedule),
      { method: 'PATCH', body: { endHour: '08:00' } },
      400,
      'businesshoursschedule.endHour',
    );
    expect(endBefore!.detail).toContain('09:00');
    const startAfter = await rejects(
      one(ids.schedule),
      { method: 'PATCH', body: { startHour: '17:00' } },
      400,
      'businesshoursschedule.startHour',
    );
    expect(startAfter!.detail).toContain('17:00');
    const moved = await api(one(ids.schedule), { method: 'PATCH', key: admin, body: { startHour: '16:59' } });
    expect(moved.status, moved.text).toBe(200);
    const back = await api(one(ids.schedule), { method: 'PATCH', key: admin, body: { startHour: '09:00' } });
    expect(back.status, back.text).toBe(200);
  });

  it('needs business hours that are live and of the same installation', async () => {
    const base = { day: 1, startHour: '09:00', endHour: '17:00' };
    const source = 'businesshoursschedule.businesshours_id';
    await rejects(LIST, { method: 'POST', body: base }, 400, source);
    await rejects(LIST, { method: 'POST', body: { ...base, businesshours_id: ids.theirHours } }, 400, source);
    await rejects(LIST, { method: 'POST', body: { ...base, businesshours_id: ids.deletedHours } }, 400, source);
    await rejects(LIST, { method: 'POST', body: { ...base, businesshours_id: 2_000_000_000 } }, 400, source);
    await rejects(LIST, { method: 'POST', body: { ...base, businesshours_id: `0${ids.hours}` } }, 400, source);
    await rejects(
      LIST,
      { method: 'POST', body: { ...base, businesshours_id: { id: ids.hours, type: 'businesshours' } } },
      400,
      source,
    );
    await rejects(LIST, { method: 'POST', body: { ...base, businesshours_id: null } }, 400, source);
    await rejects(LIST, { method: 'POST', body: { ...base, businesshours_id: 0 } }, 400, source);
    await rejects(one(ids.schedule), { method: 'PATCH', body: { businesshours_id: ids.theirHours } }, 400, source);
  });
});

describe('bad input', () => {
  for (const [what, text, source] of NOT_AN_OBJECT('businesshoursschedule')) {
    it(`answers 400 to ${what}`, async () => {
      for (const [method, path] of [
        ['POST', LIST],
        ['PATCH', one(ids.schedule)],
        ['PUT', one(ids.schedule)],
      ] as const) {
        await rejects(path, { method, body: text, headers: { 'content-type': 'application/json' } }, 400, source);
      }
    });
  }

  it('ignores an unknown property, naming it in X-Ignored-Properties, and answers 400 naming each missing required one', async () => {
    const made = await api(LIST, {
      method: 'POST',
      key: admin,
      body: { businesshours_id: ids.hours, day: 5, startHour: '09:00', endHour: '17:00', timezone: 'UTC' },
    });
    expectIgnored(made, ['businesshoursschedule.timezone']);
    const id = made.body.businesshoursschedule.id as number;
    expectIgnored(await api(one(id), { method: 'PATCH', key: admin, body: { start: '10:00', endHour: '16:00' } }), [
      'businesshoursschedule.start',
    ]);
    expect(await storedRow(id)).toEqual({
      day: 5,
      start_hour: '09:00',
      end_hour: '16:00',
      businesshours_id: ids.hours,
      state: 'active',
    });
    expect((await api(one(id), { method: 'DELETE', key: admin })).status).toBe(204);
    for (const missing of ['businesshours_id', 'day', 'startHour', 'endHour']) {
      const body: Record<string, unknown> = {
        businesshours_id: ids.hours,
        day: 1,
        startHour: '09:00',
        endHour: '17:00',
      };
      delete body[missing];
      await rejects(LIST, { method: 'POST', body }, 400, `businesshoursschedule.${missing}`);
    }
  });

  it('ignores read-only properties sent back', async () => {
    const read = (await api(one(ids.schedule), { key: admin })).body.businesshoursschedule;
    const response = await api(one(ids.schedule), {
      method: 'PUT',
      key: admin,
      body: { businesshoursschedule: { ...read, id: 0, createdAt: null }, included: {} },
    });
    expect(response.status, response.text).toBe(200);
  });

  it('answers 404 for another installation’s schedule, which stays as it was', async () => {
    for (const method of ['PATCH', 'PUT'] as const)
      await rejects(one(ids.theirSchedule), { method, body: { day: 5 } }, 404, 'id');
  });

  it('answers 403 to agents and collaborators, changing nothing', async () => {
    for (const role of ['agent', 'collaborator'] as const) {
      const key = site.users[role].apiKey;
      await rejects(
        LIST,
        { key, method: 'POST', body: { businesshours_id: ids.hours, day: 1, startHour: '09:00', endHour: '17:00' } },
        403,
      );
      await rejects(one(ids.schedule), { key, method: 'PATCH', body: { day: 5 } }, 403);
      await rejects(one(ids.schedule), { key, method: 'PUT', body: { day: 5 } }, 403);
      await rejects(one(ids.schedule), { key, method: 'DELETE' }, 403);
    }
  });
});
