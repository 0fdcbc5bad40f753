// Installing and uninstalling an app is one exchange with the database (one HTTP batch, no
// WebSocket connection): the app checked, the change with its events, the app read back. A
// setting's value takes two: the setting is read first (its type and options decide what the
// value may be), then one batch stores it, with its event, and reads it back
// (docs/connection-strategy.md).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { eventsSince, lastEventId } from '../support/events';
import { withRoundTrips } from '../support/round-trips';
import { appId, expectError, settingId, snapshot } from './helpers';

let site: SeededInstallation;
let owner: string;
let csat: number;

beforeAll(async () => {
  site = await newInstallation('apps-trips');
  owner = site.users.owner.apiKey;
  csat = await appId('csat-survey');
});

/** The request's round trips, the caller's credential looked up just before (remembered: the count is the request alone). */
async function counted(path: string, method: string, body?: unknown) {
  await api('/v2/apps.json', { key: owner });
  return withRoundTrips(path, { key: owner, method, body });
}

const features = async () =>
  (
    await rows<{ n: number }>(
      `SELECT count(*)::int AS n FROM app_feature_installations fi JOIN app_features f ON f.id = fi.appfeature_id WHERE fi.installation_id = $1 AND f.app_id = $2 AND fi.state = 'active'`,
      [site.id, csat],
    )
  )[0]!.n;

describe('apps in one round trip', () => {
  it('installs an app with its features and events, then uninstalls it, each in one exchange', async () => {
    const mark = await lastEventId(site.id);
    const installed = await counted(`/v2/apps/${csat}/install.json`, 'POST');
    expect(installed.answer.status, installed.answer.text).toBe(200);
    expect(installed.trips).toBe(1);
    expect(installed.answer.body.app).toMatchObject({ id: csat, installed: true });
    const made = await features();
    expect(made).toBeGreaterThan(0);
    const again = await counted(`/v2/apps/${csat}/install.json`, 'POST');
    expect(again.trips).toBe(1);
    const uninstalled = await counted(`/v2/apps/${csat}/uninstall.json`, 'POST');
    expect(uninstalled.answer.status, uninstalled.answer.text).toBe(200);
    expect(uninstalled.trips).toBe(1);
    expect(uninstalled.answer.body.app).toMatchObject({ id: csat, installed: false });
    expect(await features()).toBe(0);
    const kinds = (await eventsSince(site.id, mark)).map((event) => `${event.recordType}:${event.kind}`);
    // the repeated install changed nothing and wrote nothing
    expect(kinds).toEqual([
      'apps:installed',
      ...Array(made).fill('appfeaturesinstallations:created'),
      'apps:uninstalled',
      ...Array(made).fill('appfeaturesinstallations:deleted'),
    ]);
  });

  it('answers an app not in the catalogue with its 404 from the same exchange, nothing written', async () => {
    for (const action of ['install', 'uninstall']) {
      const before = await snapshot([site.id]);
      const { answer, trips } = await counted(`/v2/apps/2000000000/${action}.json`, 'POST');
      expectError(answer, 404, 'id');
      expect(answer.body.errors[0].detail).toBe('app 2000000000 not found');
      expect(trips).toBe(1);
      expect(await snapshot([site.id])).toEqual(before);
    }
  });

  it("sets a setting's value in two exchanges (the setting read, then one batch), with its event", async () => {
    expect((await api(`/v2/apps/${csat}/install.json`, { method: 'POST', key: owner })).status).toBe(200);
    const id = await settingId('csat-survey', 'sendDelayHours');
    const mark = await lastEventId(site.id);
    const { answer, trips } = await counted(`/v2/apps/${csat}/settings/${id}.json`, 'PUT', {
      appsetting: { value: 36 },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(trips).toBe(2);
    expect(answer.body.appsetting).toMatchObject({ id, value: 36, isSet: true });
    expect(
      (await eventsSince(site.id, mark)).map((event) => [event.recordType, event.recordId, event.kind, event.data]),
    ).toEqual([['apps', csat, 'settingChanged', { setting: id, value: 36 }]]);
  });
});
