// POST /v2/apps/{id}/install.json and /uninstall.json, and what they create:
// GET /v2/appfeaturesinstallations.json and /{id}.json.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { appId, expectError, settingId, snapshot } from './helpers';

let site: SeededInstallation;
let other: SeededInstallation;
let owner: string;
const installPath = (id: number) => `/v2/apps/${id}/install.json`;
const uninstallPath = (id: number) => `/v2/apps/${id}/uninstall.json`;

/** The app's feature installations in the installation, live and deleted. */
async function featureRows(installationId: number, slug: string) {
  return rows<{ id: number; appfeature_id: number; value: string | null; state: string; deleted_by: number | null }>(
    `SELECT fi.id, fi.appfeature_id, fi.value, fi.state, fi.deleted_by FROM app_feature_installations fi
       JOIN app_features f ON f.id = fi.appfeature_id JOIN apps a ON a.id = f.app_id
      WHERE fi.installation_id = $1 AND a.slug = $2 ORDER BY fi.id`,
    [installationId, slug],
  );
}

async function installationRow(installationId: number, slug: string) {
  const [row] = await rows(
    `SELECT ai.status, ai.installed_at::text, ai.uninstalled_at::text, ai.updated_at::text, ai.updated_by FROM app_installations ai
       JOIN apps a ON a.id = ai.app_id WHERE ai.installation_id = $1 AND a.slug = $2`,
    [installationId, slug],
  );
  return row;
}

beforeAll(async () => {
  site = await newInstallation('apps-install');
  other = await newInstallation('apps-install-other');
  owner = site.users.owner.apiKey;
});

describe('POST /v2/apps/{id}/install.json', () => {
  it('answers 200 with the app, now installed, and gives the installation its features at their defaults', async () => {
    const id = await appId('ai-reply-assistant');
    const response = await api(installPath(id), { method: 'POST', key: owner });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['app', 'included']);
    expect(response.body.included).toEqual({});
    expect(response.body.app).toMatchObject({
      id,
      type: 'apps',
      slug: 'ai-reply-assistant',
      installed: true,
      installedAt: expect.stringMatching(/Z$/),
    });
    const features = await featureRows(site.id, 'ai-reply-assistant');
    const catalogue = await rows<{ id: number; default_value: string }>(
      `SELECT id, default_value FROM app_features WHERE app_id = $1 ORDER BY id`,
      [id],
    );
    expect(features.map((f) => [f.appfeature_id, f.value, f.state])).toEqual(
      catalogue.map((f) => [f.id, f.default_value, 'active']),
    );
    expect(await installationRow(site.id, 'ai-reply-assistant')).toMatchObject({
      status: 'installed',
      uninstalled_at: null,
      updated_by: site.users.owner.id,
    });
    // GET agrees
    const read = await api(`/v2/apps/${id}.json`, { key: site.users.agent.apiKey });
    expect(read.body.app).toMatchObject({ installed: true, installedAt: response.body.app.installedAt });
  });

  it('is idempotent: installing an installed app answers 200 and changes nothing', async () => {
    const id = await appId('csat-survey');
    const first = await api(installPath(id), { method: 'POST', key: owner });
    expect(first.status, first.text).toBe(200);
    const before = await snapshot([site.id]);
    const second = await api(installPath(id), { method: 'POST', key: site.users.admin.apiKey });
    expect(second.status, second.text).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(await snapshot([site.id])).toEqual(before);
  });

  it('answers with what includes asks for', async () => {
    const id = await appId('csat-survey');
    const response = await api(`${installPath(id)}?includes=appsettings`, { method: 'POST', key: owner });
    expect(response.status, response.text).toBe(200);
    expect(response.body.app.appsettings).toHaveLength(4);
    expect(response.body.included.appsettings.map((s: { key: string }) => s.key)).toEqual([
      'sendDelayHours',
      'scale',
      'question',
      'signingSecret',
    ]);
    expectError(await api(`${installPath(id)}?includes=nope`, { method: 'POST', key: owner }), 400, 'includes');
  });

  it('ignores any body', async () => {
    const id = await appId('shopify-orders');
    const response = await api(installPath(id), {
      method: 'POST',
      key: owner,
      body: { app: { installed: false, name: 'x' } },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.app).toMatchObject({ installed: true, name: 'Shopify orders' });
  });

  it('does not show one installation the install state of another', async () => {
    const id = await appId('ai-reply-assistant');
    await api(installPath(id), { method: 'POST', key: owner });
    const theirs = await api(`/v2/apps/${id}.json`, { key: other.users.owner.apiKey });
    expect(theirs.body.app).toMatchObject({ installed: false, installedAt: null });
    const list = await api('/v2/apps.json', { key: other.users.owner.apiKey });
    expect(list.body.apps.every((a: { installed: boolean }) => a.installed === false)).toBe(true);
    const features = await api('/v2/appfeaturesinstallations.json', { key: other.users.owner.apiKey });
    expect(features.body.appfeaturesinstallations).toEqual([]);
    expect(await featureRows(other.id, 'ai-reply-assistant')).toEqual([]);
  });
});

describe('POST /v2/apps/{id}/uninstall.json', () => {
  it('answers 200 with the app, not installed, soft-deletes its features and keeps its setting values; re-install restores them', async () => {
    const id = await appId('slack-notifications');
    expect((await api(installPath(id), { method: 'POST', key: owner })).status).toBe(200);
    const channel = await settingId('slack-notifications', 'channel');
    const set = await api(`/v2/apps/${id}/settings/${channel}.json`, {
      method: 'PUT',
      key: owner,
      body: { appsetting: { value: '#help' } },
    });
    expect(set.status, set.text).toBe(200);
    const installed = await featureRows(site.id, 'slack-notifications');
    expect(installed.map((f) => f.state)).toEqual(['active', 'active']);

    const response = await api(uninstallPath(id), { method: 'POST', key: site.users.admin.apiKey });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['app', 'included']);
    expect(response.body.app).toMatchObject({ id, installed: false, installedAt: null });
    expect((await featureRows(site.id, 'slack-notifications')).map((f) => [f.id, f.state, f.deleted_by])).toEqual(
      installed.map((f) => [f.id, 'deleted', site.users.admin.id]),
    );
    expect(await installationRow(site.id, 'slack-notifications')).toMatchObject({
      status: 'uninstalled',
      uninstalled_at: expect.any(String),
    });
    const values = await rows(`SELECT value FROM app_setting_values WHERE installation_id = $1 AND setting_id = $2`, [
      site.id,
      channel,
    ]);
    expect(values).toEqual([{ value: '#help' }]);
    // the feature installations leave the list, and a filter on state finds them
    const live = await api('/v2/appfeaturesinstallations.json', {
      key: owner,
      query: { filter: { appfeatureId: { $in: installed.map((f) => f.appfeature_id) } } },
    });
    expect(live.body.appfeaturesinstallations).toEqual([]);
    const deleted = await api('/v2/appfeaturesinstallations.json', {
      key: owner,
      query: { filter: { state: 'deleted', appfeatureId: installed[0]!.appfeature_id } },
    });
    expect(deleted.body.appfeaturesinstallations.map((f: { id: number }) => f.id)).toEqual([installed[0]!.id]);
    expect(deleted.body.appfeaturesinstallations[0]).toMatchObject({
      state: 'deleted',
      deletedBy: { id: site.users.admin.id, type: 'users' },
    });

    const again = await api(`${installPath(id)}?includes=appsettings`, { method: 'POST', key: owner });
    expect(again.status, again.text).toBe(200);
    expect(again.body.app.installed).toBe(true);
    const restored = again.body.included.appsettings.find((s: { key: string }) => s.key === 'channel');
    expect(restored).toMatchObject({ value: '#help', isSet: true });
    const features = await featureRows(site.id, 'slack-notifications');
    expect(features.filter((f) => f.state === 'active').map((f) => f.appfeature_id)).toEqual(
      installed.map((f) => f.appfeature_id),
    );
    expect(features).toHaveLength(4);
  });

  it('is idempotent: uninstalling an app that is not installed answers 200 and changes nothing', async () => {
    const id = await appId('jira');
    const before = await snapshot([site.id]);
    const response = await api(uninstallPath(id), { method: 'POST', key: owner });
    expect(response.status, response.text).toBe(200);
    expect(response.body.app).toMatchObject({ id, installed: false, installedAt: null });
    expect(await snapshot([site.id])).toEqual(before);
    await api(installPath(id), { method: 'POST', key: owner });
    await api(uninstallPath(id), { method: 'POST', key: owner });
    const uninstalled = await snapshot([site.id]);
    expect((await api(uninstallPath(id), { method: 'POST', key: owner })).status).toBe(200);
    expect(await snapshot([site.id])).toEqual(uninstalled);
  });

  it('leaves other installations as they were', async () => {
    const id = await appId('shopify-orders');
    await api(installPath(id), { method: 'POST', key: other.users.owner.apiKey });
    await api(installPath(id), { method: 'POST', key: owner });
    const theirs = await snapshot([other.id]);
    expect((await api(uninstallPath(id), { method: 'POST', key: owner })).status).toBe(200);
    expect(await snapshot([other.id])).toEqual(theirs);
    expect((await api(`/v2/apps/${id}.json`, { key: other.users.owner.apiKey })).body.app.installed).toBe(true);
  });
});

describe('refusals of install and uninstall', () => {
  for (const action of ['install', 'uninstall'] as const) {
    const path = (id: number | string) => `/v2/apps/${id}/${action}.json`;

    it(`${action}: 403 for an agent and a collaborator, nothing changed`, async () => {
      const id = await appId('csat-survey');
      for (const role of ['agent', 'collaborator'] as const) {
        const before = await snapshot([site.id, other.id]);
        const response = await api(path(id), { method: 'POST', key: site.users[role].apiKey });
        expect(response.status, response.text).toBe(403);
        expect(response.body.errors[0]).toMatchObject({ code: 'forbidden' });
        expect(await snapshot([site.id, other.id])).toEqual(before);
      }
    });

    it(`${action}: 404 for an unknown or withdrawn app, nothing changed`, async () => {
      const [withdrawn] = await rows<{ id: number }>(
        `INSERT INTO apps (slug, name, state) VALUES ($1, 'Withdrawn', 'deleted') RETURNING id`,
        [`withdrawn-${action}-${Math.random().toString(36).slice(2, 8)}`],
      );
      for (const id of [2147483647, withdrawn!.id]) {
        const before = await snapshot([site.id, other.id]);
        expectError(await api(path(id), { method: 'POST', key: owner }), 404, 'id');
        expect(await snapshot([site.id, other.id])).toEqual(before);
      }
    });

    it(`${action}: 400 naming id for an id that is not a positive integer`, async () => {
      for (const bad of ['0', 'abc', '-3', '99999999999']) {
        const before = await snapshot([site.id]);
        expectError(await api(path(bad), { method: 'POST', key: owner }), 400, 'id');
        expect(await snapshot([site.id])).toEqual(before);
      }
    });

    it(`${action}: 401 without a credential; other methods are not routes`, async () => {
      const id = await appId('csat-survey');
      expect((await api(path(id), { method: 'POST' })).status).toBe(401);
      expect((await api(path(id), { method: 'GET', key: owner })).status).toBe(404);
    });
  }
});

describe('GET /v2/appfeaturesinstallations.json and /{id}.json', () => {
  let mine: { id: number; appfeature_id: number }[];

  beforeAll(async () => {
    const id = await appId('jira');
    expect((await api(installPath(id), { method: 'POST', key: owner })).status).toBe(200);
    mine = (await featureRows(site.id, 'jira')).filter((f) => f.state === 'active');
    await rows(`UPDATE app_feature_installations SET comment = 'pinned' WHERE id = $1`, [mine[0]!.id]);
    await api(installPath(id), { method: 'POST', key: other.users.owner.apiKey });
  });

  it("lists only the caller installation's rows, with the plural wrapper and meta.page", async () => {
    const response = await api('/v2/appfeaturesinstallations.json', { key: site.users.collaborator.apiKey });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['appfeaturesinstallations', 'included', 'meta', 'pagination']);
    const live = await rows<{ id: number }>(
      `SELECT id FROM app_feature_installations WHERE installation_id = $1 AND state = 'active' ORDER BY id`,
      [site.id],
    );
    expect(response.body.appfeaturesinstallations.map((f: { id: number }) => f.id)).toEqual(live.map((f) => f.id));
    expect(response.body.meta.page).toMatchObject({ page: 1, count: live.length, hasMore: false });
    const pinned = response.body.appfeaturesinstallations.find((f: { id: number }) => f.id === mine[0]!.id);
    expect(pinned).toEqual({
      id: mine[0]!.id,
      type: 'appfeaturesinstallations',
      appfeatureId: mine[0]!.appfeature_id,
      comment: 'pinned',
      value: 'enabled',
      state: 'active',
      createdAt: expect.any(String),
      createdBy: { id: site.users.owner.id, type: 'users' },
      updatedAt: expect.any(String),
      updatedBy: { id: site.users.owner.id, type: 'users' },
    });
  });

  it("gets one with the singular wrapper; another installation's id is a 404", async () => {
    const response = await api(`/v2/appfeaturesinstallations/${mine[0]!.id}.json`, { key: owner });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['appfeaturesinstallation', 'included']);
    expect(response.body.appfeaturesinstallation).toMatchObject({
      id: mine[0]!.id,
      appfeatureId: mine[0]!.appfeature_id,
    });
    const [theirs] = await featureRows(other.id, 'jira');
    expectError(await api(`/v2/appfeaturesinstallations/${theirs!.id}.json`, { key: owner }), 404, 'id');
    expectError(await api('/v2/appfeaturesinstallations/0.json', { key: owner }), 400, 'id');
  });

  const allowed: Record<string, (f: { id: number; appfeature_id: number }) => unknown> = {
    id: (f) => f.id,
    appfeatureId: (f) => f.appfeature_id,
    comment: () => 'pinned',
    value: () => ({ $in: ['enabled', 'disabled'] }),
    state: () => 'active',
    createdAt: () => ({ $gte: '2000-01-01' }),
    createdBy: () => site.users.owner.id,
    updatedAt: () => ({ $lt: '2999-01-01' }),
    updatedBy: () => site.users.owner.id,
    deletedAt: () => null,
    deletedBy: () => null,
  };
  for (const [name, value] of Object.entries(allowed)) {
    it(`accepts the filter and orderBy name ${name}`, async () => {
      const response = await api('/v2/appfeaturesinstallations.json', {
        key: owner,
        query: { filter: { [name]: value(mine[0]!) } },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.appfeaturesinstallations.map((f: { id: number }) => f.id)).toContain(mine[0]!.id);
      const ordered = await api(`/v2/appfeaturesinstallations.json?orderBy=${name}&orderMode=desc`, { key: owner });
      expect(ordered.status, ordered.text).toBe(200);
    });
  }

  it('filters precisely', async () => {
    const byComment = await api('/v2/appfeaturesinstallations.json', {
      key: owner,
      query: { filter: { comment: 'pinned' } },
    });
    expect(byComment.body.appfeaturesinstallations.map((f: { id: number }) => f.id)).toEqual([mine[0]!.id]);
    const byFeature = await api('/v2/appfeaturesinstallations.json', {
      key: owner,
      query: { filter: { appfeatureId: mine[1]!.appfeature_id } },
    });
    expect(byFeature.body.appfeaturesinstallations.map((f: { id: number }) => f.id)).toEqual([mine[1]!.id]);
  });

  for (const name of ['appfeature', 'installationId', 'app', 'name', 'nope']) {
    it(`refuses the filter and orderBy name ${name}`, async () => {
      expectError(
        await api('/v2/appfeaturesinstallations.json', { key: owner, query: { filter: { [name]: 1 } } }),
        400,
        `filter.${name}`,
      );
      expectError(await api(`/v2/appfeaturesinstallations.json?orderBy=${name}`, { key: owner }), 400, 'orderBy');
    });
  }

  it('includes users and all; refuses other includes', async () => {
    for (const includes of ['users', 'all']) {
      const response = await api(`/v2/appfeaturesinstallations.json?includes=${includes}`, { key: owner });
      expect(response.status, response.text).toBe(200);
      expect(response.body.included.users.map((u: { id: number }) => u.id)).toEqual([site.users.owner.id]);
      expect(response.body.included.users[0]).toMatchObject({ type: 'users', role: 'owner' });
    }
    const one = await api(`/v2/appfeaturesinstallations/${mine[0]!.id}.json?includes=users`, { key: owner });
    expect(one.body.included.users).toHaveLength(1);
    expectError(await api('/v2/appfeaturesinstallations.json?includes=appfeatures', { key: owner }), 400, 'includes');
  });

  it('is read-only: no create, update or delete route', async () => {
    const before = await snapshot([site.id]);
    expect(
      (
        await api('/v2/appfeaturesinstallations.json', {
          method: 'POST',
          key: owner,
          body: { appfeatureId: mine[0]!.appfeature_id },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await api(`/v2/appfeaturesinstallations/${mine[0]!.id}.json`, {
          method: 'PATCH',
          key: owner,
          body: { comment: 'x' },
        })
      ).status,
    ).toBe(404);
    expect(
      (await api(`/v2/appfeaturesinstallations/${mine[0]!.id}.json`, { method: 'DELETE', key: owner })).status,
    ).toBe(404);
    expect(await snapshot([site.id])).toEqual(before);
  });
});
