// `/v2/timezones...`: the catalogue of time-zone ids business hours take as `timezoneId`
// (docs/resources/timezones.md). Read-only, one catalogue for every installation, ids fixed by
// drizzle/0008_events_timezones.sql (UTC 1, then the runtime's zones alphabetically), and a valid
// zone first named later joins with a new id.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { catalogueId, expectErrorBody, expectPagination, UTC, zoneId } from './support';

const LIST = '/v2/timezones.json';
const one = (id: number | string) => `/v2/timezones/${id}.json`;
/** The zones migration 0008 seeded: ids 1 to 419, never renumbered. Zones named later have higher ids. */
const SEEDED = 419;
const SEEDED_ONLY = { id: { $lte: SEEDED } };
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let site: SeededInstallation;
let other: SeededInstallation;
let key: string;

interface Zone {
  id: number;
  type: string;
  name: string;
}

/** Every zone the filter selects, page after page, with each page's body checked on the way. */
async function walk(
  apiKey: string,
  query: Record<string, string | number | object>,
  pageSize: number,
): Promise<Zone[]> {
  const zones: Zone[] = [];
  for (let page = 1; ; page++) {
    const response = await api(LIST, { key: apiKey, query: { ...query, pageSize, page } });
    expect(response.status, response.text).toBe(200);
    expectPagination(response.body);
    expect(response.body.pagination.page).toBe(page);
    zones.push(...response.body.timezones);
    if (!response.body.pagination.hasMorePages) return zones;
    expect(response.body.timezones).toHaveLength(pageSize);
  }
}

beforeAll(async () => {
  site = await newInstallation('tz');
  other = await newInstallation('tz-other');
  key = site.users.admin.apiKey;
});

describe('list', () => {
  it('lists as timezones with meta.page and pagination, by id, each {id, type, name} and the audit set', async () => {
    const response = await api(LIST, { key, query: { pageSize: 3 } });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['included', 'meta', 'pagination', 'timezones']);
    expect(response.body.included).toEqual({});
    expect(response.body.timezones.map((z: Zone) => [z.id, z.name])).toEqual([
      [1, 'UTC'],
      [2, 'Africa/Abidjan'],
      [3, 'Africa/Accra'],
    ]);
    expect(response.body.timezones[0]).toEqual({
      id: 1,
      type: 'timezones',
      name: 'UTC',
      state: 'active',
      createdAt: expect.stringMatching(ISO),
      createdBy: null,
      updatedAt: expect.stringMatching(ISO),
      updatedBy: null,
    });
    const { pagination } = response.body;
    expect(pagination).toMatchObject({ pageSize: 3, page: 1, hasMorePages: true });
    expect(pagination.records).toBeGreaterThanOrEqual(SEEDED);
    expect(pagination.pages).toBe(Math.ceil(pagination.records / 3));
    expectPagination(response.body);
  });

  it('pages through the seeded catalogue: ids 1 to 419, UTC first, then alphabetical', async () => {
    const first = await api(LIST, { key, query: { filter: SEEDED_ONLY, pageSize: 100 } });
    expect(first.body.meta.page).toEqual({
      page: 1,
      pageSize: 100,
      pageOffset: 0,
      count: SEEDED,
      pages: 5,
      hasMore: true,
    });
    expect(first.body.pagination).toEqual({ records: SEEDED, pageSize: 100, pages: 5, page: 1, hasMorePages: true });
    const last = await api(LIST, { key, query: { filter: SEEDED_ONLY, pageSize: 100, page: 5 } });
    expect(last.body.timezones).toHaveLength(SEEDED - 400);
    expect(last.body.pagination).toEqual({ records: SEEDED, pageSize: 100, pages: 5, page: 5, hasMorePages: false });
    const beyond = await api(LIST, { key, query: { filter: SEEDED_ONLY, pageSize: 100, page: 6 } });
    expect(beyond.status).toBe(200);
    expect(beyond.body.timezones).toEqual([]);
    expect(beyond.body.pagination).toEqual({ records: SEEDED, pageSize: 100, pages: 5, page: 6, hasMorePages: false });

    const zones = await walk(key, { filter: SEEDED_ONLY }, 100);
    expect(zones.map((z) => z.id)).toEqual(Array.from({ length: SEEDED }, (_, i) => i + 1));
    expect(zones.every((z) => z.type === 'timezones')).toBe(true);
    const stored = await rows<{ id: number; name: string }>(
      'SELECT id, name FROM timezones WHERE id <= $1 ORDER BY id',
      [SEEDED],
    );
    expect(zones.map((z) => ({ id: z.id, name: z.name }))).toEqual(stored);
    expect(zones[0]!.name).toBe('UTC');
    const rest = zones.slice(1).map((z) => z.name);
    expect(rest).toEqual([...rest].sort());
    expect(new Set(rest).size).toBe(rest.length);
    expect(rest).not.toContain('UTC');
    // A few ids pinned: the migration fixes them for good.
    expect(
      Object.fromEntries(
        zones
          .filter((z) => ['Europe/Dublin', 'America/New_York', 'Pacific/Wallis'].includes(z.name))
          .map((z) => [z.name, z.id]),
      ),
    ).toEqual({ 'America/New_York': 156, 'Europe/Dublin': 326, 'Pacific/Wallis': 419 });
  });

  it('filters by name', async () => {
    const dublin = await zoneId('Europe/Dublin');
    const exact = await api(LIST, { key, query: { filter: { name: 'Europe/Dublin' } } });
    expect(exact.status, exact.text).toBe(200);
    expect(exact.body.timezones).toEqual([
      expect.objectContaining({ id: dublin, type: 'timezones', name: 'Europe/Dublin' }),
    ]);
    expect(exact.body.pagination).toEqual({ records: 1, pageSize: 50, pages: 1, page: 1, hasMorePages: false });
    const several = await api(LIST, {
      key,
      query: { filter: { name: { $in: ['UTC', 'Asia/Tokyo', 'Europe/Dublin'] } } },
    });
    expect(several.body.timezones.map((z: Zone) => [z.id, z.name])).toEqual(
      [
        [UTC, 'UTC'],
        [dublin, 'Europe/Dublin'],
        [await zoneId('Asia/Tokyo'), 'Asia/Tokyo'],
      ].sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
    const contains = await api(LIST, { key, query: { filter: { name: { $contains: 'dublin' } } } });
    expect(contains.body.timezones.map((z: Zone) => z.name)).toEqual(['Europe/Dublin']);
    const byId = await api(LIST, { key, query: { filter: { id: dublin } } });
    expect(byId.body.timezones.map((z: Zone) => z.name)).toEqual(['Europe/Dublin']);
    const none = await api(LIST, { key, query: { filter: { name: 'Mars/Olympus_Mons' } } });
    expect(none.status).toBe(200);
    expect(none.body.timezones).toEqual([]);
    expect(none.body.pagination).toMatchObject({ records: 0, page: 1, hasMorePages: false });
    expectPagination(none.body);
  });

  it('orders by name and by id, either way', async () => {
    const names = ['UTC', 'Pacific/Wallis', 'Europe/Dublin', 'Africa/Abidjan', 'America/New_York', 'Asia/Tokyo'];
    const ordered = async (orderBy: string, orderMode: string) => {
      const response = await api(LIST, { key, query: { filter: { name: { $in: names } }, orderBy, orderMode } });
      expect(response.status, response.text).toBe(200);
      return response.body.timezones.map((z: Zone) => z.name);
    };
    const alphabetical = [...names].sort();
    expect(await ordered('name', 'asc')).toEqual(alphabetical);
    expect(await ordered('name', 'desc')).toEqual([...alphabetical].reverse());
    // By id, UTC comes first: the catalogue is alphabetical after it.
    expect(await ordered('id', 'asc')).toEqual(['UTC', ...alphabetical.filter((n) => n !== 'UTC')]);
    expect(await ordered('id', 'desc')).toEqual(['UTC', ...alphabetical.filter((n) => n !== 'UTC')].reverse());
    const firstByName = await api(LIST, { key, query: { orderBy: 'name', pageSize: 2 } });
    expect(firstByName.body.timezones.map((z: Zone) => z.name)).toEqual(['Africa/Abidjan', 'Africa/Accra']);
  });

  it('takes id and name as filter and orderBy names, and only the include all', async () => {
    for (const name of ['state', 'createdAt', 'timezoneId', 'installationId']) {
      const filtered = expectErrorBody(
        await api(LIST, { key, query: { filter: { [name]: 'x' } } }),
        400,
        `filter.${name}`,
      );
      expect(filtered.detail).toContain(name);
      const ordered = expectErrorBody(await api(LIST, { key, query: { orderBy: name } }), 400, 'orderBy');
      expect(ordered.detail).toContain(name);
    }
    expectErrorBody(await api(LIST, { key, query: { filter: { name: 1 } } }), 400, 'filter.name');
    expectErrorBody(await api(LIST, { key, query: { filter: { id: 'Europe/Dublin' } } }), 400, 'filter.id');
    expect((await api(LIST, { key, query: { includes: 'all', pageSize: 1 } })).status).toBe(200);
    expectErrorBody(await api(LIST, { key, query: { includes: 'users' } }), 400, 'includes');
    expectErrorBody(await api(LIST, { key, query: { pageSize: 101 } }), 400, 'pageSize');
  });
});

describe('get', () => {
  it('reads one zone wrapped as timezone: /v2/timezones/1.json is UTC', async () => {
    const response = await api(one(UTC), { key });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['included', 'timezone']);
    expect(response.body.timezone).toEqual({
      id: 1,
      type: 'timezones',
      name: 'UTC',
      state: 'active',
      createdAt: expect.stringMatching(ISO),
      createdBy: null,
      updatedAt: expect.stringMatching(ISO),
      updatedBy: null,
    });
    expect(response.body.included).toEqual({});
  });

  it('reads the same record as the list does', async () => {
    const dublin = await zoneId('Europe/Dublin');
    const listed = await api(LIST, { key, query: { filter: { name: 'Europe/Dublin' } } });
    const read = await api(one(dublin), { key });
    expect(read.body.timezone).toEqual(listed.body.timezones[0]);
  });

  it('answers 404 for an id not in the catalogue, 400 for one that is not an id', async () => {
    const entry = expectErrorBody(await api(one(2_000_000_000), { key }), 404, 'id');
    expect(entry.detail).toContain('2000000000');
    expectErrorBody(await api(one('abc'), { key }), 400, 'id');
    expectErrorBody(await api(one('Europe%2FDublin'), { key }), 400, 'id');
  });
});

describe('read-only', () => {
  const writes: [string, string, unknown][] = [
    ['POST', LIST, { timezone: { name: 'Asia/Kathmandu' } }],
    ['PATCH', one(UTC), { timezone: { name: 'Europe/Dublin' } }],
    ['PUT', one(UTC), { timezone: { name: 'Europe/Dublin' } }],
    ['DELETE', one(UTC), undefined],
    ['PATCH', '/v2/timezones/update.json', { timezone: { name: 'x' } }],
    ['DELETE', '/v2/timezones/delete.json', undefined],
  ];

  it('has no write routes: each answers 404 with the error body naming the path, and changes nothing', async () => {
    const before = await rows('SELECT to_jsonb(t) AS row FROM timezones t WHERE id <= $1 ORDER BY id', [SEEDED]);
    for (const apiKey of [site.users.owner.apiKey, key]) {
      for (const [method, path, body] of writes) {
        const response = await api(path, {
          method,
          key: apiKey,
          body,
          query: path.includes('update') || path.includes('delete') ? { filter: { id: UTC } } : {},
        });
        const entry = expectErrorBody(response, 404, 'path');
        expect(entry.detail).toContain(`${method} ${path}`);
      }
    }
    expect(await rows('SELECT to_jsonb(t) AS row FROM timezones t WHERE id <= $1 ORDER BY id', [SEEDED])).toEqual(
      before,
    );
    expect((await api(one(UTC), { key })).body.timezone.name).toBe('UTC');
  });

  it('documents GET only, for the list and for one zone', async () => {
    const { paths } = (await api('/v2/openapi.json')).body;
    expect(Object.keys(paths['/v2/timezones.json'])).toEqual(['get']);
    expect(Object.keys(paths['/v2/timezones/{id}.json'])).toEqual(['get']);
    expect(paths['/v2/timezones/update.json']).toBeUndefined();
    expect(paths['/v2/timezones/delete.json']).toBeUndefined();
  });
});

describe('one catalogue for every installation', () => {
  it('lists the same zones with the same ids to every installation and every role', async () => {
    const mine = await walk(key, { filter: SEEDED_ONLY }, 100);
    for (const [installation, role] of [
      [site, 'owner'],
      [site, 'agent'],
      [site, 'collaborator'],
      [other, 'admin'],
      [other, 'collaborator'],
    ] as const) {
      expect(
        await walk(installation.users[role].apiKey, { filter: SEEDED_ONLY }, 100),
        `${installation.id} ${role}`,
      ).toEqual(mine);
    }
  });

  it('a zone one installation names joins for all, with the same id', async () => {
    const zone = 'Europe/Kyiv';
    expect(await catalogueId(zone)).toBeUndefined();
    const created = await api('/v2/businesshours.json', {
      method: 'POST',
      key: other.users.admin.apiKey,
      body: { name: 'Kyiv office', timezone_name: zone },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.businesshour.timezoneId;
    expect(id).toBeGreaterThan(SEEDED);
    expect(id).toBe(await zoneId(zone));

    const mine = await api(one(id), { key: site.users.agent.apiKey });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.timezone).toMatchObject({
      id,
      type: 'timezones',
      name: zone,
      state: 'active',
      createdBy: null,
      updatedBy: null,
    });
    const listed = await api(LIST, { key, query: { filter: { name: zone } } });
    expect(listed.body.timezones).toEqual([mine.body.timezone]);
    // Another installation writes it by the id alone.
    const fresh = await newInstallation('tz-third');
    const byId = await api('/v2/businesshours.json', {
      method: 'POST',
      key: fresh.users.admin.apiKey,
      body: { name: 'Also Kyiv', timezoneId: id },
    });
    expect(byId.status, byId.text).toBe(201);
    expect(byId.body.businesshour).toMatchObject({ timezoneId: id, timezone_name: zone });
  });
});

describe('access', () => {
  it('answers 401 without a credential, or with one that is not a key', async () => {
    for (const path of [LIST, one(UTC), one(2_000_000_000)]) {
      expectErrorBody(await api(path), 401);
      expectErrorBody(await api(path, { key: 'not-a-key' }), 401);
    }
  });
});
