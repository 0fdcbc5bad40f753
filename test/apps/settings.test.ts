// PUT /v2/apps/{appId}/settings/{id}.json: one setting of an installed app, validated against its
// declared type, and how settings read through includes=appsettings.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api, type ApiRequest } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectIgnored } from '../support/ignored';
import { appId, expectError, settingId, snapshot } from './helpers';

let site: SeededInstallation;
let other: SeededInstallation;
let owner: string;
const ids = { slack: 0, jira: 0, csat: 0, ai: 0, shopify: 0 };
const setting: Record<string, number> = {};

const path = (app: number, id: number) => `/v2/apps/${app}/settings/${id}.json`;

async function put(app: number, id: number, body: unknown, key = owner) {
  return api(path(app, id), { method: 'PUT', key, body });
}

/** Sends the request, checks the error body, and that no row changed in either installation. */
async function rejects(target: string, request: ApiRequest, status: number, source: string) {
  const before = await snapshot([site.id, other.id]);
  const response = await api(target, { method: 'PUT', key: owner, ...request });
  const entry = expectError(response, status, source);
  expect(await snapshot([site.id, other.id])).toEqual(before);
  return entry;
}

async function storedValue(installationId: number, id: number) {
  const found = await rows<{ value: unknown }>(
    `SELECT value FROM app_setting_values WHERE installation_id = $1 AND setting_id = $2`,
    [installationId, id],
  );
  return found[0];
}

beforeAll(async () => {
  site = await newInstallation('apps-settings');
  other = await newInstallation('apps-settings-other');
  owner = site.users.owner.apiKey;
  ids.slack = await appId('slack-notifications');
  ids.jira = await appId('jira');
  ids.csat = await appId('csat-survey');
  ids.ai = await appId('ai-reply-assistant');
  ids.shopify = await appId('shopify-orders');
  for (const [slug, key] of [
    ['slack-notifications', 'webhookUrl'],
    ['slack-notifications', 'channel'],
    ['slack-notifications', 'notifyOn'],
    ['slack-notifications', 'mentionAssignee'],
    ['jira', 'siteUrl'],
    ['jira', 'apiToken'],
    ['jira', 'projectKey'],
    ['csat-survey', 'sendDelayHours'],
    ['csat-survey', 'scale'],
    ['ai-reply-assistant', 'maxSuggestions'],
    ['ai-reply-assistant', 'instructions'],
  ] as const) {
    setting[key] = await settingId(slug, key);
  }
  for (const app of [ids.slack, ids.jira, ids.csat, ids.ai]) {
    expect((await api(`/v2/apps/${app}/install.json`, { method: 'POST', key: owner })).status).toBe(200);
  }
  expect(
    (await api(`/v2/apps/${ids.csat}/install.json`, { method: 'POST', key: other.users.owner.apiKey })).status,
  ).toBe(200);
});

describe('PUT /v2/apps/{appId}/settings/{id}.json', () => {
  it('answers 200 with {appsetting, included} and stores the value for the caller installation only', async () => {
    const response = await put(ids.csat, setting.sendDelayHours!, { appsetting: { value: 48 } });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['appsetting', 'included']);
    expect(response.body.appsetting).toEqual({
      id: setting.sendDelayHours,
      type: 'appsettings',
      app: { id: ids.csat, type: 'apps' },
      key: 'sendDelayHours',
      name: expect.any(String),
      settingType: 'number',
      options: null,
      required: true,
      defaultValue: 24,
      value: 48,
      isSet: true,
      state: 'active',
      createdAt: expect.any(String),
      createdBy: null,
      updatedAt: expect.stringMatching(/Z$/),
      updatedBy: { id: site.users.owner.id, type: 'users' },
    });
    expect(await storedValue(site.id, setting.sendDelayHours!)).toEqual({ value: 48 });
    expect(await storedValue(other.id, setting.sendDelayHours!)).toBeUndefined();
    // the other installation still reads the default
    const theirs = await api(`/v2/apps/${ids.csat}.json?includes=appsettings`, { key: other.users.owner.apiKey });
    expect(theirs.body.included.appsettings.find((s: { key: string }) => s.key === 'sendDelayHours')).toMatchObject({
      value: 24,
      isSet: false,
    });
    const mine = await api(`/v2/apps/${ids.csat}.json?includes=appsettings,users`, { key: site.users.agent.apiKey });
    expect(mine.body.included.appsettings.find((s: { key: string }) => s.key === 'sendDelayHours')).toMatchObject({
      value: 48,
      isSet: true,
    });
    // the user who changed it is there to resolve updatedBy
    expect(mine.body.included.users.map((u: { id: number }) => u.id)).toEqual([site.users.owner.id]);
  });

  it('takes the bare body too, and an admin may', async () => {
    const response = await put(ids.slack, setting.channel!, { value: '#escalations' }, site.users.admin.apiKey);
    expect(response.status, response.text).toBe(200);
    expect(response.body.appsetting).toMatchObject({
      key: 'channel',
      value: '#escalations',
      isSet: true,
      updatedBy: { id: site.users.admin.id, type: 'users' },
    });
  });

  it('accepts a value of each type', async () => {
    const cases: [number, number, unknown][] = [
      [ids.slack, setting.channel!, ''],
      [ids.slack, setting.channel!, 'x'.repeat(10_000)],
      [ids.slack, setting.channel!, '#support-🎧'],
      [ids.csat, setting.sendDelayHours!, 0],
      [ids.csat, setting.sendDelayHours!, -1.5],
      [ids.csat, setting.sendDelayHours!, 1e300],
      [ids.slack, setting.mentionAssignee!, false],
      [ids.slack, setting.notifyOn!, 'urgent_only'],
      [ids.csat, setting.scale!, 'thumbs'],
    ];
    for (const [app, id, value] of cases) {
      const response = await put(app, id, { appsetting: { value } });
      expect(response.status, `${JSON.stringify(value).slice(0, 40)}: ${response.text.slice(0, 300)}`).toBe(200);
      expect(response.body.appsetting.value).toEqual(value);
      expect((await storedValue(site.id, id))!.value).toEqual(value);
    }
  });

  it('null resets to the default (isSet false); a value equal to the default is still set', async () => {
    expect((await put(ids.slack, setting.notifyOn!, { value: 'all' })).body.appsetting.value).toBe('all');
    const reset = await put(ids.slack, setting.notifyOn!, { value: null });
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body.appsetting).toMatchObject({ value: 'new_tickets', defaultValue: 'new_tickets', isSet: false });
    const same = await put(ids.slack, setting.notifyOn!, { value: 'new_tickets' });
    expect(same.body.appsetting).toMatchObject({ value: 'new_tickets', isSet: true });
    const optional = await put(ids.ai, setting.instructions!, { value: null });
    expect(optional.status, optional.text).toBe(200);
    expect(optional.body.appsetting).toMatchObject({ value: null, defaultValue: null, isSet: false });
  });

  it('ignores the read-only properties of a setting sent back as read', async () => {
    const read = await api(`/v2/apps/${ids.csat}.json?includes=appsettings`, { key: owner });
    const scale = read.body.included.appsettings.find((s: { key: string }) => s.key === 'scale');
    const response = await put(ids.csat, setting.scale!, {
      appsetting: {
        ...scale,
        id: 1,
        key: 'other',
        name: 'Renamed',
        settingType: 'number',
        options: [],
        value: 'emoji',
      },
      included: {},
      meta: {},
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.appsetting).toMatchObject({
      id: setting.scale,
      key: 'scale',
      settingType: 'select',
      options: ['1-5', 'thumbs', 'emoji'],
      value: 'emoji',
    });
    const [definition] = await rows(`SELECT key, name, setting_type FROM app_setting_definitions WHERE id = $1`, [
      setting.scale,
    ]);
    expect(definition).toMatchObject({ key: 'scale', setting_type: 'select' });
    expect(definition!.name).not.toBe('Renamed');
  });
});

describe('secrets', () => {
  it('are stored but never read back: value null, isSet true', async () => {
    const response = await put(ids.jira, setting.apiToken!, { appsetting: { value: 'atl-token-123' } });
    expect(response.status, response.text).toBe(200);
    expect(response.body.appsetting).toMatchObject({
      settingType: 'secret',
      value: null,
      defaultValue: null,
      isSet: true,
    });
    expect(response.text).not.toContain('atl-token-123');
    expect(await storedValue(site.id, setting.apiToken!)).toEqual({ value: 'atl-token-123' });
    for (const target of [`/v2/apps/${ids.jira}.json?includes=all`, '/v2/apps.json?includes=appsettings']) {
      const read = await api(target, { key: owner });
      expect(read.status).toBe(200);
      expect(read.text).not.toContain('atl-token-123');
    }
  });

  it('sent back as read (value null, isSet true) stay as they are; a plain null clears them', async () => {
    await put(ids.slack, setting.webhookUrl!, { value: 'https://hooks.slack.test/T000/B000/xyz' });
    const read = await api(`/v2/apps/${ids.slack}.json?includes=appsettings`, { key: owner });
    const webhook = read.body.included.appsettings.find((s: { key: string }) => s.key === 'webhookUrl');
    expect(webhook).toMatchObject({ value: null, isSet: true });
    const before = await snapshot([site.id]);
    const back = await put(ids.slack, setting.webhookUrl!, { appsetting: webhook });
    expect(back.status, back.text).toBe(200);
    expect(back.body.appsetting).toMatchObject({ isSet: true });
    expect(await snapshot([site.id])).toEqual(before);
    // the webhook URL is required with no default: it cannot be cleared
    await rejects(path(ids.slack, setting.webhookUrl!), { body: { value: null } }, 400, 'appsetting.value');
    await rejects(
      path(ids.slack, setting.webhookUrl!),
      { body: { value: null, isSet: false } },
      400,
      'appsetting.value',
    );
    // CSAT's signing secret is optional: a plain null clears it
    const signing = await settingId('csat-survey', 'signingSecret');
    expect((await put(ids.csat, signing, { value: 'whsec_1' })).body.appsetting).toMatchObject({
      value: null,
      isSet: true,
    });
    const kept = await put(ids.csat, signing, { appsetting: { value: null, isSet: true } });
    expect(kept.body.appsetting.isSet).toBe(true);
    expect(await storedValue(site.id, signing)).toEqual({ value: 'whsec_1' });
    const cleared = await put(ids.csat, signing, { appsetting: { value: null } });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.appsetting).toMatchObject({ value: null, isSet: false });
    expect(await storedValue(site.id, signing)).toEqual({ value: null });
  });

  it('refuse an empty string', async () => {
    await rejects(path(ids.jira, setting.apiToken!), { body: { value: '' } }, 400, 'appsetting.value');
  });
});

describe('values of the wrong type: 400 naming appsetting.value, nothing changed', () => {
  const cases: [string, () => [number, number], unknown[]][] = [
    ['string', () => [ids.slack, setting.channel!], [42, true, ['#a'], { name: '#a' }, 'x'.repeat(10_001)]],
    ['number', () => [ids.csat, setting.sendDelayHours!], ['24', true, [], {}, '1e3']],
    ['boolean', () => [ids.slack, setting.mentionAssignee!], ['true', 1, 0, 'yes', []]],
    ['select', () => [ids.csat, setting.scale!], ['1-10', 'THUMBS', 5, true, ['thumbs'], '']],
    ['secret', () => [ids.jira, setting.apiToken!], [12345, false, { token: 'x' }, '', 'x'.repeat(10_001)]],
  ];
  for (const [type, target, values] of cases) {
    it(`a ${type} setting refuses ${values.map((v) => JSON.stringify(v).slice(0, 12)).join(', ')}`, async () => {
      const [app, id] = target();
      for (const value of values) {
        const entry = await rejects(path(app, id), { body: { appsetting: { value } } }, 400, 'appsetting.value');
        if (type === 'select') expect(entry.detail).toContain('1-5, thumbs, emoji');
      }
    });
  }

  it('a NUL character in a string is a 400, not a 500', async () => {
    await rejects(path(ids.slack, setting.channel!), { body: { value: 'a\u0000b' } }, 400, 'appsetting.value');
  });

  it('a required setting without a default cannot be reset to null', async () => {
    await rejects(path(ids.jira, setting.siteUrl!), { body: { value: null } }, 400, 'appsetting.value');
  });
});

describe('bad bodies: 4xx naming the culprit, nothing changed', () => {
  const target = () => path(ids.slack, setting.channel!);

  it('malformed, empty or non-object JSON is a 400 naming body', async () => {
    for (const text of ['{"value": "#a",}', '{"appsetting": {"value": "#a"}', '', '[]', '"#a"', '42', 'null']) {
      await rejects(target(), { body: text, headers: { 'content-type': 'application/json' } }, 400, 'body');
    }
  });

  it('a wrapper that is not an object is a 400 naming appsetting', async () => {
    for (const inner of ['#a', null, ['#a'], 5])
      await rejects(target(), { body: { appsetting: inner } }, 400, 'appsetting');
  });

  it('a missing value is a 400 naming appsetting.value', async () => {
    const entry = await rejects(target(), { body: { appsetting: {} } }, 400, 'appsetting.value');
    expect(entry.detail).toBe('must be set');
    await rejects(target(), { body: {} }, 400, 'appsetting.value');
    await rejects(target(), { body: { appsetting: { key: 'channel' } } }, 400, 'appsetting.value');
  });

  it('an unknown property is ignored and named in X-Ignored-Properties, wrapped, bare or beside the wrapper', async () => {
    expectIgnored(
      await api(target(), { method: 'PUT', key: owner, body: { appsetting: { value: '#a', colour: 'red' } } }),
      ['appsetting.colour'],
    );
    expectIgnored(await api(target(), { method: 'PUT', key: owner, body: { value: '#b', colour: 'red' } }), [
      'appsetting.colour',
    ]);
    expectIgnored(
      await api(target(), { method: 'PUT', key: owner, body: { appsetting: { value: '#c' }, colour: 'red' } }),
      ['colour'],
    );
    expect(await storedValue(site.id, setting.channel!)).toEqual({ value: '#c' });
    await rejects(target(), { body: { appsetting: { value: 5, colour: 'red' } } }, 400, 'appsetting.value');
  });

  it('a body that is not JSON is a 415', async () => {
    await rejects(
      target(),
      { body: 'value=%23a', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      415,
      'body',
    );
    await rejects(target(), { body: '{"value": "#a"}', headers: { 'content-type': 'text/plain' } }, 415, 'body');
  });

  it('a body over 1,000,000 bytes is a 413', async () => {
    await rejects(target(), { body: { value: 'x'.repeat(1_000_001) } }, 413, 'body');
  });
});

describe('refusals by path, role and install state', () => {
  it('409 when the app is not installed in the caller installation (installed elsewhere does not count)', async () => {
    const shopify = await settingId('shopify-orders', 'ordersShown');
    await api(`/v2/apps/${ids.shopify}/install.json`, { method: 'POST', key: other.users.owner.apiKey });
    const entry = await rejects(path(ids.shopify, shopify), { body: { value: 10 } }, 409, 'appId');
    expect(entry.detail).toMatch(/not installed/);
    expect(entry.detail).toContain(`/v2/apps/${ids.shopify}/install.json`);
  });

  it('409 after an uninstall, and the kept value is still there', async () => {
    expect((await put(ids.ai, setting.maxSuggestions!, { value: 5 })).status).toBe(200);
    await api(`/v2/apps/${ids.ai}/uninstall.json`, { method: 'POST', key: owner });
    await rejects(path(ids.ai, setting.maxSuggestions!), { body: { value: 6 } }, 409, 'appId');
    expect(await storedValue(site.id, setting.maxSuggestions!)).toEqual({ value: 5 });
    await api(`/v2/apps/${ids.ai}/install.json`, { method: 'POST', key: owner });
    expect((await put(ids.ai, setting.maxSuggestions!, { value: 6 })).body.appsetting.value).toBe(6);
  });

  it('404 for an unknown app, naming appId', async () => {
    await rejects(path(2147483647, setting.channel!), { body: { value: '#a' } }, 404, 'appId');
  });

  it("404 for a setting that is not that app's, or does not exist, naming id", async () => {
    await rejects(path(ids.slack, setting.sendDelayHours!), { body: { value: 5 } }, 404, 'id');
    await rejects(path(ids.csat, setting.channel!), { body: { value: '#a' } }, 404, 'id');
    await rejects(path(ids.slack, 2147483647), { body: { value: '#a' } }, 404, 'id');
  });

  it('400 naming the path parameter that is not a positive integer', async () => {
    await rejects(`/v2/apps/abc/settings/${setting.channel}.json`, { body: { value: '#a' } }, 400, 'appId');
    await rejects(`/v2/apps/${ids.slack}/settings/0.json`, { body: { value: '#a' } }, 400, 'id');
    await rejects(`/v2/apps/${ids.slack}/settings/1.5.json`, { body: { value: '#a' } }, 400, 'id');
  });

  it('403 for an agent and a collaborator', async () => {
    for (const role of ['agent', 'collaborator'] as const) {
      const before = await snapshot([site.id, other.id]);
      const response = await put(ids.slack, setting.channel!, { value: '#agents' }, site.users[role].apiKey);
      expect(response.status, response.text).toBe(403);
      expect(response.body.errors[0].code).toBe('forbidden');
      expect(await snapshot([site.id, other.id])).toEqual(before);
    }
  });

  it("another installation's settings are untouched by this one's writes", async () => {
    const before = await snapshot([other.id]);
    expect((await put(ids.csat, setting.scale!, { value: 'emoji' })).status).toBe(200);
    expect(await snapshot([other.id])).toEqual(before);
    const theirs = await api(`/v2/apps/${ids.csat}.json?includes=appsettings`, { key: other.users.owner.apiKey });
    expect(theirs.body.included.appsettings.find((s: { key: string }) => s.key === 'scale')).toMatchObject({
      value: '1-5',
      isSet: false,
    });
  });

  it('401 without a credential; PATCH and POST are not routes', async () => {
    expect((await api(path(ids.slack, setting.channel!), { method: 'PUT', body: { value: '#a' } })).status).toBe(401);
    expect(
      (await api(path(ids.slack, setting.channel!), { method: 'PATCH', key: owner, body: { value: '#a' } })).status,
    ).toBe(404);
  });
});
