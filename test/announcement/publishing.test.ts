// /v2/announcements...: the owner publishes, edits, schedules, expires and withdraws
// announcements; GET /v2/announcement.json shows the result. Every refusal changes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api, type ApiRequest } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectIgnored } from '../support/ignored';
import { announcementRows, expectError, insertAnnouncement } from './fixtures';

let site: SeededInstallation;
let other: SeededInstallation;
let ownerKey: string;
const LIST = '/v2/announcements.json';
const one = (id: number) => `/v2/announcements/${id}.json`;
const hoursFromNow = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

beforeAll(async () => {
  site = await newInstallation('publish');
  other = await newInstallation('publish-other');
  ownerKey = site.users.owner.apiKey;
});

async function publish(announcement: Record<string, unknown>, installation = site) {
  const response = await api(LIST, { method: 'POST', key: installation.users.owner.apiKey, body: { announcement } });
  expect(response.status, response.text).toBe(201);
  return response.body.announcement as { id: number; [name: string]: unknown };
}

const current = async (key: string) => {
  const response = await api('/v2/announcement.json', { key });
  return response.status === 204 ? null : (response.body.announcement as { id: number; title: string });
};

describe('publishing', () => {
  it('POST answers 201 with the announcement, published now for everyone unless told otherwise', async () => {
    const site2 = await newInstallation('publish-defaults');
    const response = await api(LIST, {
      method: 'POST',
      key: site2.users.owner.apiKey,
      body: { announcement: { title: ' New inbox ', body: 'Sales has its own inbox.' } },
    });
    expect(response.status, response.text).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(['announcement', 'included']);
    const announcement = response.body.announcement;
    expect(announcement).toMatchObject({
      type: 'announcements',
      title: 'New inbox',
      body: 'Sales has its own inbox.',
      audience: 'everyone',
      expiresAt: null,
      createdBy: { id: site2.users.owner.id, type: 'users' },
      state: 'active',
    });
    expect(Math.abs(Date.now() - Date.parse(announcement.publishedAt))).toBeLessThan(60_000);
    expect((await current(site2.users.collaborator.apiKey))?.id).toBe(announcement.id);
  });

  it('takes an audience, a publication time (any offset) and an expiry', async () => {
    const a = await publish({
      title: 'Admins',
      body: 'b',
      audience: 'admins',
      publishedAt: '2026-03-01T10:00:00+02:00',
      expiresAt: '2999-01-01T00:00:00.000Z',
    });
    expect(a).toMatchObject({
      audience: 'admins',
      publishedAt: '2026-03-01T08:00:00.000Z',
      expiresAt: '2999-01-01T00:00:00.000Z',
    });
    const [row] = await rows<{ published_at: Date }>('SELECT published_at FROM announcements WHERE id = $1', [a.id]);
    expect(row!.published_at.toISOString()).toBe('2026-03-01T08:00:00.000Z');
  });

  it('schedules an announcement: it shows from its publication time', async () => {
    const site2 = await newInstallation('publish-schedule');
    const later = await publish({ title: 'Later', body: 'b', publishedAt: hoursFromNow(1) }, site2);
    expect(await current(site2.users.agent.apiKey)).toBeNull();
    await rows(`UPDATE announcements SET published_at = now() - interval '1 second' WHERE id = $1`, [later.id]);
    expect((await current(site2.users.agent.apiKey))?.title).toBe('Later');
  });

  it('PATCH edits exactly what is sent; PUT means PATCH', async () => {
    const a = await publish({ title: 'Typo', body: 'Original body', audience: 'agents' });
    const patched = await api(one(a.id), {
      method: 'PATCH',
      key: ownerKey,
      body: { announcement: { title: 'Fixed' } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.announcement).toMatchObject({
      title: 'Fixed',
      body: 'Original body',
      audience: 'agents',
      publishedAt: a.publishedAt,
    });
    const put = await api(one(a.id), { method: 'PUT', key: ownerKey, body: { audience: 'everyone' } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.announcement).toMatchObject({ title: 'Fixed', audience: 'everyone' });
  });

  it('expires an announcement by PATCHing expiresAt, and withdraws it by DELETE', async () => {
    const site2 = await newInstallation('publish-withdraw');
    const older = await publish({ title: 'Older', body: 'b', publishedAt: hoursFromNow(-2) }, site2);
    const newer = await publish({ title: 'Newer', body: 'b', publishedAt: hoursFromNow(-1) }, site2);
    const key = site2.users.collaborator.apiKey;
    expect((await current(key))?.id).toBe(newer.id);
    const expired = await api(one(newer.id), {
      method: 'PATCH',
      key: site2.users.owner.apiKey,
      body: { expiresAt: hoursFromNow(-0.5) },
    });
    expect(expired.status, expired.text).toBe(200);
    expect((await current(key))?.id).toBe(older.id);
    const deleted = await api(one(older.id), { method: 'DELETE', key: site2.users.owner.apiKey });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect(await current(key)).toBeNull();
    expect((await api(one(older.id), { key: site2.users.owner.apiKey })).status).toBe(404);
    const [row] = await rows('SELECT state, deleted_by FROM announcements WHERE id = $1', [older.id]);
    expect(row).toEqual({ state: 'deleted', deleted_by: site2.users.owner.id });
  });

  it('lists every announcement for the owner, scheduled and expired too, with filters and order', async () => {
    const site2 = await newInstallation('publish-list');
    const a = await publish({ title: 'Alpha', body: 'b', audience: 'owners', publishedAt: hoursFromNow(5) }, site2);
    const b = await publish(
      { title: 'Bravo', body: 'b', publishedAt: hoursFromNow(-5), expiresAt: hoursFromNow(-1) },
      site2,
    );
    const key = site2.users.owner.apiKey;
    const list = await api(`${LIST}?orderBy=publishedAt&orderMode=desc`, { key });
    expect(list.status, list.text).toBe(200);
    expect(list.body.announcements.map((x: { id: number }) => x.id)).toEqual([a.id, b.id]);
    expect(list.body.meta.page).toMatchObject({ count: 2 });
    for (const [filter, expected] of [
      [{ audience: 'owners' }, [a.id]],
      [{ title: { $contains: 'rav' } }, [b.id]],
      [{ expiresAt: null }, [a.id]],
      [{ publishedAt: { $lt: new Date().toISOString() } }, [b.id]],
    ] as const) {
      const response = await api(LIST, { key, query: { filter } });
      expect(response.status, response.text).toBe(200);
      expect(response.body.announcements.map((x: { id: number }) => x.id)).toEqual(expected);
    }
    expectError(await api(LIST, { key, query: { filter: { body: 'b' } } }), 400, 'filter.body');
    expectError(await api(`${LIST}?orderBy=body`, { key }), 400, 'orderBy');
    const included = await api(`${LIST}?includes=users`, { key });
    expect(included.body.included.users.map((u: { id: number }) => u.id)).toEqual([site2.users.owner.id]);
  });
});

describe('publishing refusals', () => {
  let id = 0;
  let theirs = 0;
  beforeAll(async () => {
    id = await insertAnnouncement(site.id, { title: 'Target', expiresIn: '10 days' });
    theirs = await insertAnnouncement(other.id, { title: 'Theirs' });
  });

  async function refused(path: string, request: ApiRequest, status: number, source: string | RegExp, detail?: RegExp) {
    const before = await announcementRows([site.id, other.id]);
    expectError(await api(path, { key: ownerKey, ...request }), status, source, detail);
    expect(await announcementRows([site.id, other.id])).toEqual(before);
  }
  const writes = () => [
    { path: LIST, method: 'POST' },
    { path: one(id), method: 'PATCH' },
    { path: one(id), method: 'PUT' },
  ];

  it('400 to malformed JSON, no body, and bodies that are not an object', async () => {
    for (const { path, method } of writes()) {
      for (const [text, source] of [
        ['{"title": "x",}', 'body'],
        ['', 'body'],
        ['[]', 'body'],
        ['{"announcement": 1}', 'announcement'],
      ]) {
        await refused(path, { method, body: text, headers: { 'content-type': 'application/json' } }, 400, source!);
      }
    }
  });

  it('400 to a property of the wrong type or out of range, naming it', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ title: 5 }, 'announcement.title'],
      [{ title: '   ' }, 'announcement.title'],
      [{ title: 'x'.repeat(256) }, 'announcement.title'],
      [{ body: null }, 'announcement.body'],
      [{ audience: 'staff' }, 'announcement.audience'],
      [{ audience: null }, 'announcement.audience'],
      [{ publishedAt: 'tomorrow' }, 'announcement.publishedAt'],
      [{ publishedAt: '2026-05-01' }, 'announcement.publishedAt'],
      [{ publishedAt: '2026-05-01T10:00:00' }, 'announcement.publishedAt'],
      [{ publishedAt: '0000-01-01T00:00:00Z' }, 'announcement.publishedAt'],
      [{ publishedAt: '2026-02-30T00:00:00Z' }, 'announcement.publishedAt'],
      [{ publishedAt: null }, 'announcement.publishedAt'],
      [{ expiresAt: 12 }, 'announcement.expiresAt'],
    ];
    for (const [props, source] of bad) {
      await refused(LIST, { method: 'POST', body: { announcement: { title: 'T', body: 'B', ...props } } }, 400, source);
      await refused(one(id), { method: 'PATCH', body: { announcement: props } }, 400, source);
    }
  });

  it('an unknown property, inside or beside the wrapper: ignored and named in X-Ignored-Properties', async () => {
    const mine = await insertAnnouncement(site.id, { title: 'Ignoring' });
    for (const { path, method } of [
      { path: LIST, method: 'POST' },
      { path: one(mine), method: 'PATCH' },
      { path: one(mine), method: 'PUT' },
    ]) {
      expectIgnored(
        await api(path, {
          method,
          key: ownerKey,
          body: { announcement: { title: 'T', body: 'B', colour: 'crimson' }, extra: 1 },
        }),
        ['announcement.colour', 'extra'],
      );
    }
    expect(JSON.stringify(await announcementRows([site.id]))).not.toMatch(/crimson/);
    // beside a wrong value, an unknown property changes nothing: the 400 names the wrong one
    for (const { path, method } of writes())
      await refused(
        path,
        { method, body: { announcement: { title: 5, body: 'B', colour: 'red' } } },
        400,
        'announcement.title',
      );
  });

  it('400 to a create missing title or body', async () => {
    await refused(
      LIST,
      { method: 'POST', body: { announcement: { body: 'B' } } },
      400,
      'announcement.title',
      /must be set/,
    );
    await refused(LIST, { method: 'POST', body: { title: 'T' } }, 400, 'announcement.body', /must be set/);
  });

  it('400 to an expiry not after the publication, against the stored values on PATCH', async () => {
    await refused(
      LIST,
      {
        method: 'POST',
        body: { title: 'T', body: 'B', publishedAt: '2026-05-01T00:00:00Z', expiresAt: '2026-05-01T00:00:00Z' },
      },
      400,
      'announcement.expiresAt',
    );
    await refused(
      LIST,
      { method: 'POST', body: { title: 'T', body: 'B', expiresAt: '2020-01-01T00:00:00Z' } },
      400,
      'announcement.expiresAt',
    );
    await refused(
      one(id),
      { method: 'PATCH', body: { expiresAt: '2020-01-01T00:00:00Z' } },
      400,
      'announcement.expiresAt',
    );
    await refused(
      one(id),
      { method: 'PATCH', body: { publishedAt: '2999-01-01T00:00:00Z' } },
      400,
      'announcement.publishedAt',
    );
  });

  it("404 to another installation's announcement, a deleted one, one that does not exist", async () => {
    const gone = await insertAnnouncement(site.id, { title: 'Gone', state: 'deleted' });
    for (const target of [theirs, gone, 2_000_000_000]) {
      await refused(one(target), { method: 'PATCH', body: { title: 'Mine now' } }, 404, 'id');
      await refused(one(target), { method: 'DELETE' }, 404, 'id');
      await refused(one(target), {}, 404, 'id');
    }
  });

  it('403 to every role but the owner, reads included', async () => {
    for (const role of ['admin', 'agent', 'collaborator'] as const) {
      const key = site.users[role].apiKey;
      await refused(LIST, { method: 'POST', key, body: { title: 'T', body: 'B' } }, 403, /.*/);
      await refused(one(id), { method: 'PATCH', key, body: { title: 'T' } }, 403, /.*/);
      await refused(one(id), { method: 'DELETE', key }, 403, /.*/);
      await refused(LIST, { key }, 403, /.*/);
      await refused(one(id), { key }, 403, /.*/);
    }
  });

  it('serves no bulk update or bulk delete: update.json and delete.json read as a bad id', async () => {
    await refused(
      '/v2/announcements/update.json',
      { method: 'PATCH', query: { filter: { id } }, body: { title: 'x' } },
      400,
      'id',
      /"update"/,
    );
    await refused(
      '/v2/announcements/delete.json',
      { method: 'DELETE', query: { filter: { id } } },
      400,
      'id',
      /"delete"/,
    );
  });
});
