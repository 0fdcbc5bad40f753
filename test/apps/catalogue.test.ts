// The catalogue reads: GET /v2/apps.json, /v2/apps/{id}.json, /v2/appfeatures.json and
// /v2/appfeatures/{id}.json. Contract (wrappers, paging), the seeded catalogue, and the allowed
// and refused filter, orderBy and includes names of part 2.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { appId, expectError } from './helpers';

let site: SeededInstallation;
let key: string;
const SLUGS = ['slack-notifications', 'jira', 'csat-survey', 'ai-reply-assistant', 'shopify-orders'];

beforeAll(async () => {
  site = await newInstallation('apps-catalogue');
  // a collaborator (no seat) reads the catalogue too
  key = site.users.collaborator.apiKey;
});

describe('the seeded catalogue', () => {
  it('holds the five apps, with settings of every type and features for each', async () => {
    const apps = await rows<{ slug: string; settings: number; features: number }>(
      `SELECT a.slug, (SELECT count(*)::int FROM app_setting_definitions d WHERE d.app_id = a.id) AS settings,
              (SELECT count(*)::int FROM app_features f WHERE f.app_id = a.id) AS features
         FROM apps a WHERE a.slug = ANY($1) ORDER BY a.slug`,
      [SLUGS],
    );
    expect(apps.map((a) => a.slug).sort()).toEqual([...SLUGS].sort());
    for (const app of apps) {
      expect(app.settings, app.slug).toBeGreaterThanOrEqual(1);
      expect(app.settings, app.slug).toBeLessThanOrEqual(4);
      expect(app.features, app.slug).toBeGreaterThanOrEqual(1);
      expect(app.features, app.slug).toBeLessThanOrEqual(3);
    }
    const types = await rows<{ setting_type: string }>(
      `SELECT DISTINCT setting_type FROM app_setting_definitions ORDER BY 1`,
    );
    expect(types.map((t) => t.setting_type)).toEqual(['boolean', 'number', 'secret', 'select', 'string']);
  });
});

describe('the catalogue migration', () => {
  it('is idempotent: running it again adds and changes nothing', async () => {
    const catalogue = async () => ({
      apps: await rows(`SELECT to_jsonb(t) AS row FROM apps t WHERE slug = ANY($1) ORDER BY id`, [SLUGS]),
      settings: await rows(`SELECT to_jsonb(t) AS row FROM app_setting_definitions t ORDER BY id`),
      features: await rows(`SELECT to_jsonb(t) AS row FROM app_features t ORDER BY id`),
    });
    const before = await catalogue();
    const migration = readFileSync(new URL('../../drizzle/0002_app_catalogue.sql', import.meta.url), 'utf8');
    for (const statement of migration.split('--> statement-breakpoint')) await rows(statement);
    expect(await catalogue()).toEqual(before);
  });

  it("keeps each app's settings in the order they are declared", async () => {
    const keys = await rows<{ key: string }>(
      `SELECT d.key FROM app_setting_definitions d JOIN apps a ON a.id = d.app_id WHERE a.slug = 'slack-notifications' ORDER BY d.id`,
    );
    expect(keys.map((k) => k.key)).toEqual(['webhookUrl', 'channel', 'notifyOn', 'mentionAssignee']);
  });
});

describe('GET /v2/apps.json', () => {
  it('answers 200 with the plural wrapper, included and meta.page', async () => {
    const response = await api('/v2/apps.json', { key });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['apps', 'included', 'meta', 'pagination']);
    expect(response.body.included).toEqual({});
    expect(response.body.meta.page).toMatchObject({ page: 1, pageSize: 50, pageOffset: 0, hasMore: false });
    expect(response.body.meta.page.count).toBeGreaterThanOrEqual(5);
    const slugs = response.body.apps.map((a: { slug: string }) => a.slug);
    expect(slugs).toEqual(expect.arrayContaining(SLUGS));
  });

  it('reads each app with the catalogue fields, the audit set and its install state here', async () => {
    const response = await api('/v2/apps.json', { key });
    const slack = response.body.apps.find((a: { slug: string }) => a.slug === 'slack-notifications');
    expect(slack).toEqual({
      id: await appId('slack-notifications'),
      type: 'apps',
      slug: 'slack-notifications',
      name: 'Slack notifications',
      description: expect.any(String),
      developer: 'Helpdesk',
      iconUrl: expect.stringMatching(/^https:\/\//),
      installed: false,
      installedAt: null,
      state: 'active',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      createdBy: null,
      updatedAt: expect.stringMatching(/Z$/),
      updatedBy: null,
    });
  });

  it('pages', async () => {
    const response = await api('/v2/apps.json?pageSize=2&page=2', { key });
    expect(response.status).toBe(200);
    expect(response.body.apps).toHaveLength(2);
    expect(response.body.meta.page).toMatchObject({ page: 2, pageSize: 2, pageOffset: 2, hasMore: true });
  });

  const allowedFilters: Record<string, unknown> = {
    createdAt: { $gte: '2000-01-01' },
    createdBy: null,
    deletedAt: null,
    deletedBy: null,
    state: 'active',
    updatedAt: { $lte: '2999-01-01T00:00:00Z' },
    updatedBy: null,
  };
  for (const [name, value] of Object.entries(allowedFilters)) {
    it(`accepts the filter name ${name}`, async () => {
      const response = await api('/v2/apps.json', { key, query: { filter: { [name]: value } } });
      expect(response.status, response.text).toBe(200);
      expect(response.body.apps.map((a: { slug: string }) => a.slug)).toEqual(expect.arrayContaining(SLUGS));
    });
    it(`accepts orderBy=${name}`, async () => {
      const response = await api(`/v2/apps.json?orderBy=${name}&orderMode=desc`, { key });
      expect(response.status, response.text).toBe(200);
      expect(response.body.apps.length).toBeGreaterThanOrEqual(5);
    });
  }

  for (const name of ['id', 'name', 'slug', 'installed', 'installedAt', 'appsettings', 'nope']) {
    it(`refuses the filter name ${name} (400 naming filter.${name})`, async () => {
      const response = await api('/v2/apps.json', { key, query: { filter: { [name]: 1 } } });
      expectError(response, 400, `filter.${name}`);
    });
    it(`refuses orderBy=${name} (400 naming orderBy)`, async () => {
      expectError(await api(`/v2/apps.json?orderBy=${name}`, { key }), 400, 'orderBy');
    });
  }

  it('filters on state: a deleted app leaves the list unless the filter asks for it', async () => {
    const [withdrawn] = await rows<{ id: number }>(
      `INSERT INTO apps (slug, name, state, deleted_at) VALUES ($1, 'Withdrawn', 'deleted', now()) RETURNING id`,
      [`withdrawn-${Math.random().toString(36).slice(2, 8)}`],
    );
    const live = await api('/v2/apps.json', { key });
    expect(live.body.apps.map((a: { id: number }) => a.id)).not.toContain(withdrawn!.id);
    const deleted = await api('/v2/apps.json', { key, query: { filter: { state: 'deleted' } } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.apps.map((a: { id: number }) => a.id)).toContain(withdrawn!.id);
    expect(deleted.body.apps.find((a: { id: number }) => a.id === withdrawn!.id)).toMatchObject({
      state: 'deleted',
      deletedAt: expect.any(String),
    });
    expectError(await api(`/v2/apps/${withdrawn!.id}.json`, { key }), 404, 'id');
  });

  it('includes appsettings: references on each app, the settings in included', async () => {
    const response = await api('/v2/apps.json?includes=appsettings', { key });
    expect(response.status, response.text).toBe(200);
    const csat = response.body.apps.find((a: { slug: string }) => a.slug === 'csat-survey');
    expect(csat.appsettings).toHaveLength(4);
    for (const ref of csat.appsettings) expect(ref).toEqual({ id: expect.any(Number), type: 'appsettings' });
    const settings = response.body.included.appsettings;
    const delay = settings.find((s: { key: string }) => s.key === 'sendDelayHours');
    expect(delay).toMatchObject({
      type: 'appsettings',
      app: { id: csat.id, type: 'apps' },
      name: expect.any(String),
      settingType: 'number',
      options: null,
      required: true,
      defaultValue: 24,
      value: 24,
      isSet: false,
      state: 'active',
    });
    const scale = settings.find((s: { key: string }) => s.key === 'scale');
    expect(scale).toMatchObject({ settingType: 'select', options: ['1-5', 'thumbs', 'emoji'], value: '1-5' });
    expect(csat).not.toHaveProperty('users');
  });

  it('includes users and all; an unknown include is a 400 naming includes', async () => {
    for (const includes of ['users', 'all', 'appsettings,users']) {
      const response = await api(`/v2/apps.json?includes=${includes}`, { key });
      expect(response.status, `${includes}: ${response.text}`).toBe(200);
    }
    const all = await api('/v2/apps.json?includes=all', { key });
    expect(Array.isArray(all.body.apps[0].appsettings)).toBe(true);
    expect(all.body.included.appsettings.length).toBeGreaterThan(0);
    // the catalogue names no user of this installation
    expect(all.body.included.users ?? []).toEqual([]);
    for (const includes of ['features', 'appfeatures', 'settings', 'users,nope']) {
      const entry = expectError(await api(`/v2/apps.json?includes=${includes}`, { key }), 400, 'includes');
      expect(entry.detail).toContain('appsettings');
    }
  });
});

describe('GET /v2/apps/{id}.json', () => {
  it('answers 200 with the singular wrapper and included', async () => {
    const id = await appId('jira');
    const response = await api(`/v2/apps/${id}.json`, { key });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['app', 'included']);
    expect(response.body.app).toMatchObject({ id, type: 'apps', slug: 'jira', installed: false, installedAt: null });
    expect(response.body.included).toEqual({});
  });

  it('accepts includes appsettings, users, all and refuses others', async () => {
    const id = await appId('jira');
    const settings = await api(`/v2/apps/${id}.json?includes=appsettings`, { key });
    expect(settings.status).toBe(200);
    expect(settings.body.app.appsettings.map((s: { id: number }) => s.id)).toEqual(
      settings.body.included.appsettings.map((s: { id: number }) => s.id),
    );
    expect(settings.body.included.appsettings.map((s: { key: string }) => s.key)).toEqual([
      'siteUrl',
      'apiToken',
      'projectKey',
      'syncComments',
    ]);
    const token = settings.body.included.appsettings.find((s: { key: string }) => s.key === 'apiToken');
    expect(token).toMatchObject({
      settingType: 'secret',
      value: null,
      defaultValue: null,
      isSet: false,
      required: true,
    });
    for (const includes of ['users', 'all'])
      expect((await api(`/v2/apps/${id}.json?includes=${includes}`, { key })).status).toBe(200);
    expectError(await api(`/v2/apps/${id}.json?includes=customers`, { key }), 400, 'includes');
  });

  it('answers 404 for an unknown id and 400 for an id that is not a positive integer', async () => {
    expectError(await api('/v2/apps/2147483647.json', { key }), 404, 'id');
    for (const bad of ['0', '-1', 'abc', '1.5', '2147483648'])
      expectError(await api(`/v2/apps/${bad}.json`, { key }), 400, 'id');
  });

  it('answers 401 without a credential', async () => {
    const response = await api('/v2/apps.json');
    expect(response.status).toBe(401);
  });

  it('is read-only: no create, update or delete route', async () => {
    const id = await appId('jira');
    expect(
      (await api('/v2/apps.json', { method: 'POST', key: site.users.owner.apiKey, body: { app: { name: 'Mine' } } }))
        .status,
    ).toBe(404);
    expect(
      (
        await api(`/v2/apps/${id}.json`, {
          method: 'PATCH',
          key: site.users.owner.apiKey,
          body: { app: { name: 'Mine' } },
        })
      ).status,
    ).toBe(404);
    expect((await api(`/v2/apps/${id}.json`, { method: 'DELETE', key: site.users.owner.apiKey })).status).toBe(404);
    const [app] = await rows(`SELECT name, state FROM apps WHERE id = $1`, [id]);
    expect(app).toEqual({ name: 'Jira', state: 'active' });
  });
});

describe('GET /v2/appfeatures.json and /v2/appfeatures/{id}.json', () => {
  it('lists the features with the plural wrapper and meta.page', async () => {
    const response = await api('/v2/appfeatures.json', { key });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['appfeatures', 'included', 'meta', 'pagination']);
    expect(response.body.meta.page.count).toBeGreaterThanOrEqual(10);
    const jira = await appId('jira');
    const sidebar = response.body.appfeatures.find((f: { name: string }) => f.name === 'Linked issues sidebar');
    expect(sidebar).toEqual({
      id: expect.any(Number),
      type: 'appfeatures',
      app: { id: jira, type: 'apps' },
      name: 'Linked issues sidebar',
      description: expect.any(String),
      defaultValue: 'enabled',
      state: 'active',
      createdAt: expect.any(String),
      createdBy: null,
      updatedAt: expect.any(String),
      updatedBy: null,
    });
  });

  it('gets one with the singular wrapper; 404 for an unknown id, 400 for a bad one', async () => {
    const [feature] = await rows<{ id: number }>(`SELECT id FROM app_features WHERE name = 'CSAT report'`);
    const response = await api(`/v2/appfeatures/${feature!.id}.json`, { key });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['appfeature', 'included']);
    expect(response.body.appfeature).toMatchObject({ id: feature!.id, type: 'appfeatures', name: 'CSAT report' });
    expectError(await api('/v2/appfeatures/2147483647.json', { key }), 404, 'id');
    expectError(await api('/v2/appfeatures/x.json', { key }), 400, 'id');
  });

  it('accepts the filter names id and name', async () => {
    const [feature] = await rows<{ id: number }>(`SELECT id FROM app_features WHERE name = 'Tone rewrite'`);
    const byId = await api('/v2/appfeatures.json', { key, query: { filter: { id: feature!.id } } });
    expect(byId.status, byId.text).toBe(200);
    expect(byId.body.appfeatures.map((f: { name: string }) => f.name)).toEqual(['Tone rewrite']);
    const byName = await api('/v2/appfeatures.json', { key, query: { filter: { name: { $contains: 'SIDEBAR' } } } });
    expect(byName.status, byName.text).toBe(200);
    expect(byName.body.appfeatures.map((f: { name: string }) => f.name).sort()).toEqual([
      'Customer orders sidebar',
      'Linked issues sidebar',
    ]);
  });

  it('accepts orderBy id and name', async () => {
    const byName = await api('/v2/appfeatures.json?orderBy=name', { key });
    expect(byName.status, byName.text).toBe(200);
    const names = byName.body.appfeatures.map((f: { name: string }) => f.name);
    expect(names).toEqual([...names].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)));
    const byId = await api('/v2/appfeatures.json?orderBy=id&orderMode=desc', { key });
    expect(byId.status).toBe(200);
    const ids = byId.body.appfeatures.map((f: { id: number }) => f.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
  });

  for (const name of ['state', 'createdAt', 'updatedBy', 'app', 'description', 'defaultValue', 'nope']) {
    it(`refuses the filter and orderBy name ${name}`, async () => {
      expectError(
        await api('/v2/appfeatures.json', { key, query: { filter: { [name]: 'x' } } }),
        400,
        `filter.${name}`,
      );
      expectError(await api(`/v2/appfeatures.json?orderBy=${name}`, { key }), 400, 'orderBy');
    });
  }

  it('accepts includes users and all; refuses others', async () => {
    for (const includes of ['users', 'all']) {
      const response = await api(`/v2/appfeatures.json?includes=${includes}`, { key });
      expect(response.status, response.text).toBe(200);
      expect(response.body.included.users ?? []).toEqual([]);
    }
    const [feature] = await rows<{ id: number }>(`SELECT id FROM app_features LIMIT 1`);
    expect((await api(`/v2/appfeatures/${feature!.id}.json?includes=all`, { key })).status).toBe(200);
    expectError(await api('/v2/appfeatures.json?includes=apps', { key }), 400, 'includes');
    expectError(await api(`/v2/appfeatures/${feature!.id}.json?includes=appsettings`, { key }), 400, 'includes');
  });
});

describe('the OpenAPI document', () => {
  it('lists every apps-group operation, with its path parameters', async () => {
    const { paths } = (await api('/v2/openapi.json')).body;
    const operations = [
      ['get', '/v2/apps.json'],
      ['get', '/v2/apps/{id}.json'],
      ['post', '/v2/apps/{id}/install.json'],
      ['post', '/v2/apps/{id}/uninstall.json'],
      ['put', '/v2/apps/{appId}/settings/{id}.json'],
      ['get', '/v2/appfeatures.json'],
      ['get', '/v2/appfeatures/{id}.json'],
      ['get', '/v2/appfeaturesinstallations.json'],
      ['get', '/v2/appfeaturesinstallations/{id}.json'],
    ] as const;
    for (const [method, path] of operations) expect(paths[path]?.[method], `${method} ${path}`).toBeDefined();
    const put = paths['/v2/apps/{appId}/settings/{id}.json'].put;
    expect(put.parameters.map((p: { name: string }) => p.name)).toEqual(['Idempotency-Key', 'appId', 'id']);
    expect(Object.keys(put.responses)).toEqual(expect.arrayContaining(['200', '400', '403', '404', '409']));
    const orderBy = paths['/v2/apps.json'].get.parameters.find((p: { name: string }) => p.name === 'orderBy');
    expect(orderBy.schema.enum).not.toContain('id');
    // read-only groups: no writes
    expect(paths['/v2/apps.json'].post).toBeUndefined();
    expect(paths['/v2/appfeatures/{id}.json'].patch).toBeUndefined();
    expect(paths['/v2/appfeaturesinstallations/{id}.json'].delete).toBeUndefined();
  });
});
