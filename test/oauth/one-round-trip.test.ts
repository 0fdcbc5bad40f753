// An OAuth app's create, update and new secret are one exchange with the database (one HTTP batch):
// a new secret's app locked and checked (404, a public app's 409) by a statement of the batch, its
// event telling the prefix before and after; a refusal writes nothing. A teammate's consent is one
// batch too: the grant and its code (docs/connection-strategy.md, "Writes in one round trip").
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { eventsSince, lastEventId } from '../support/events';
import { withRoundTrips } from '../support/round-trips';
import { registerApp } from './support';

let site: SeededInstallation;
let other: SeededInstallation;
let key: string;

beforeAll(async () => {
  site = await newInstallation('oauth-trips');
  other = await newInstallation('oauth-trips-other');
  key = site.users.owner.apiKey;
});

/** The request's answer and round trips, the credential looked up just before (so the count is the write alone). */
async function tripsOf(path: string, method: string, body?: unknown) {
  expect((await api('/v2/me.json', { key })).status).toBe(200);
  return withRoundTrips(path, { key, method, body });
}

const events = async (mark: number) => eventsSince(site.id, mark);

describe('OAuth apps in one round trip', () => {
  it('registers an app, renames it and gives it a new secret, one exchange each, with their events', async () => {
    const mark = await lastEventId(site.id);
    const made = await tripsOf('/v2/oauthapps.json', 'POST', { oauthapp: { name: 'Trip app', redirectUris: ['https://trip.example.com/cb'] } });
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(1);
    const app = made.answer.body.oauthapp;
    expect(app).toMatchObject({ name: 'Trip app', clientType: 'confidential', clientSecret: expect.stringMatching(/^hds_/) });

    const renamed = await tripsOf(`/v2/oauthapps/${app.id}.json`, 'PATCH', { oauthapp: { name: 'Trip app 2' } });
    expect(renamed.answer.status, renamed.answer.text).toBe(200);
    expect(renamed.trips).toBe(1);

    const rotated = await tripsOf(`/v2/oauthapps/${app.id}/secret.json`, 'POST');
    expect(rotated.answer.status, rotated.answer.text).toBe(200);
    expect(rotated.trips).toBe(1);
    const secret = rotated.answer.body.oauthapp.clientSecret as string;
    expect(secret).not.toBe(app.clientSecret);
    expect(rotated.answer.body.oauthapp.secretPrefix).not.toBe(app.secretPrefix);

    const written = await events(mark);
    expect(written.map((e) => `${e.recordType} ${e.recordId} ${e.kind}`)).toEqual([`oauthapps ${app.id} created`, `oauthapps ${app.id} updated`, `oauthapps ${app.id} updated`]);
    // the secret itself is in no event: its prefix tells it changed
    expect(written[2]!.data).toEqual({ secretPrefix: { before: app.secretPrefix, after: rotated.answer.body.oauthapp.secretPrefix } });
    expect(JSON.stringify(written)).not.toContain(secret);
  });

  it("refuses a new secret for a public app (409) and another installation's (404) in one exchange, changing nothing", async () => {
    const publicApp = await registerApp(site, { redirectUris: ['http://127.0.0.1/cb'], clientType: 'public' });
    const theirs = await registerApp(other, { redirectUris: ['https://theirs.example.com/cb'] });
    const mark = await lastEventId(site.id);
    const before = await rows(`SELECT id, secret_hash, secret_prefix, updated_at::text FROM oauth_apps WHERE installation_id = ANY($1) ORDER BY id`, [[site.id, other.id]]);
    for (const [id, status, detail] of [[publicApp.id, 409, 'a public app has no client secret'], [theirs.id, 404, `no oauthapps ${theirs.id} here`]] as const) {
      const { answer, trips } = await tripsOf(`/v2/oauthapps/${id}/secret.json`, 'POST');
      expect(answer.status, answer.text).toBe(status);
      expect(answer.body.errors).toEqual([{ code: status === 409 ? 'conflict' : 'notFound', source: 'id', detail }]);
      expect(trips).toBe(1);
    }
    expect(await rows(`SELECT id, secret_hash, secret_prefix, updated_at::text FROM oauth_apps WHERE installation_id = ANY($1) ORDER BY id`, [[site.id, other.id]])).toEqual(before);
    expect(await events(mark)).toEqual([]);
  });
});
