// An OAuth app's create, update and new secret are one exchange with the database (one HTTP batch):
// a new secret's app locked and checked (404, a public app's 409) by a statement of the batch, its
// event telling the prefix before and after; a refusal writes nothing. A teammate's consent is one
// batch too: the page's sign-in credential, the grant and its code (docs/connection-strategy.md, "Writes in one round trip").
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { eventsSince, lastEventId } from '../support/events';
import { awaitLogLines } from '../support/logs';
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
    const made = await tripsOf('/v2/oauthapps.json', 'POST', {
      oauthapp: { name: 'Trip app', redirectUris: ['https://trip.example.com/cb'] },
    });
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(1);
    const app = made.answer.body.oauthapp;
    expect(app).toMatchObject({
      name: 'Trip app',
      clientType: 'confidential',
      clientSecret: expect.stringMatching(/^hds_/),
    });

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
    expect(written.map((e) => `${e.recordType} ${e.recordId} ${e.kind}`)).toEqual([
      `oauthapps ${app.id} created`,
      `oauthapps ${app.id} updated`,
      `oauthapps ${app.id} updated`,
    ]);
    // the secret itself is in no event: its prefix tells it changed
    expect(written[2]!.data).toEqual({
      secretPrefix: { before: app.secretPrefix, after: rotated.answer.body.oauthapp.secretPrefix },
    });
    expect(JSON.stringify(written)).not.toContain(secret);
  });

  it("refuses a new secret for a public app (409) and another installation's (404) in one exchange, changing nothing", async () => {
    const publicApp = await registerApp(site, { redirectUris: ['http://127.0.0.1/cb'], clientType: 'public' });
    const theirs = await registerApp(other, { redirectUris: ['https://theirs.example.com/cb'] });
    const mark = await lastEventId(site.id);
    const before = await rows(
      `SELECT id, secret_hash, secret_prefix, updated_at::text FROM oauth_apps WHERE installation_id = ANY($1) ORDER BY id`,
      [[site.id, other.id]],
    );
    for (const [id, status, detail] of [
      [publicApp.id, 409, 'a public app has no client secret'],
      [theirs.id, 404, `no oauthapps ${theirs.id} here`],
    ] as const) {
      const { answer, trips } = await tripsOf(`/v2/oauthapps/${id}/secret.json`, 'POST');
      expect(answer.status, answer.text).toBe(status);
      expect(answer.body.errors).toEqual([{ code: status === 409 ? 'conflict' : 'notFound', source: 'id', detail }]);
      expect(trips).toBe(1);
    }
    expect(
      await rows(
        `SELECT id, secret_hash, secret_prefix, updated_at::text FROM oauth_apps WHERE installation_id = ANY($1) ORDER BY id`,
        [[site.id, other.id]],
      ),
    ).toEqual(before);
    expect(await events(mark)).toEqual([]);
  });
});

describe('deletes in one round trip', () => {
  it('revokes a grant, and deletes an app with its grants, one exchange each', async () => {
    const app = await registerApp(site, { redirectUris: ['https://gone.example.com/cb'] });
    const grant = async () =>
      (
        await rows<{ id: number }>(
          `INSERT INTO oauth_grants (installation_id, app_id, user_id, scopes, created_by, updated_by) VALUES ($1, $2, $3, '{desk}', $3, $3) RETURNING id`,
          [site.id, app.id, site.users.owner.id],
        )
      )[0]!.id;
    const [first, second] = [await grant(), await grant()];
    const mark = await lastEventId(site.id);
    const revoked = await tripsOf(`/v2/oauthgrants/${first}.json`, 'DELETE');
    expect(revoked.answer.status, revoked.answer.text).toBe(204);
    expect(revoked.trips).toBe(1);
    const deleted = await tripsOf(`/v2/oauthapps/${app.id}.json`, 'DELETE');
    expect(deleted.answer.status, deleted.answer.text).toBe(204);
    expect(deleted.trips).toBe(1);
    expect(await rows(`SELECT id, state FROM oauth_grants WHERE app_id = $1 ORDER BY id`, [app.id])).toEqual([
      { id: first, state: 'deleted' },
      { id: second, state: 'deleted' },
    ]);
    expect((await events(mark)).map((e) => `${e.recordType} ${e.recordId} ${e.kind}`)).toEqual([
      `oauthgrants ${first} deleted`,
      `oauthapps ${app.id} deleted`,
      `oauthgrants ${second} deleted`,
    ]);
  });
});

describe("a teammate's consent and the code's exchange", () => {
  it('writes the grant and its code in one batch, and exchanges the code or a refresh token in one batch after the app is read', async () => {
    const { createHash, randomBytes } = await import('node:crypto');
    const verifier = randomBytes(32).toString('base64url');
    const app = await registerApp(site, { redirectUris: ['https://trip.example.com/cb'] });
    const request = {
      client_id: app.clientId,
      response_type: 'code',
      redirect_uri: 'https://trip.example.com/cb',
      state: 'trip',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    };
    const page = await fetch(`${inject('workerUrl')}/oauth/authorize?${new URLSearchParams(request)}`);
    expect(page.status).toBe(200);
    const consentToken = /name="consent_token" value="([^"]+)"/.exec(await page.text())![1]!;
    const cookie = (page.headers as unknown as { getSetCookie(): string[] })
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    expect((await api('/v2/me.json', { key: site.users.agent.apiKey })).status).toBe(200);
    const counted = async (path: string, body: Record<string, string>, headers: Record<string, string> = {}) => {
      const requestId = `trips-${Math.random().toString(36).slice(2)}`;
      const answer = await fetch(`${inject('workerUrl')}${path}`, {
        method: 'POST',
        redirect: 'manual',
        body: new URLSearchParams(body).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': requestId, ...headers },
      });
      const [line] = await awaitLogLines({ requestId });
      return { answer, trips: line!.dbRoundTrips as number };
    };
    const allowed = await counted(
      '/oauth/authorize',
      { ...request, decision: 'allow', api_key: site.users.agent.apiKey, consent_token: consentToken },
      { cookie },
    );
    expect(allowed.answer.status).toBe(303);
    const code = new URL(allowed.answer.headers.get('location')!).searchParams.get('code')!;
    // the app read, then one batch: the sign-in cookie's credential, the grant and its code
    expect(allowed.trips).toBe(2);
    const signin = (allowed.answer.headers as unknown as { getSetCookie(): string[] })
      .getSetCookie()
      .find((line) => line.startsWith('hd_signin='));
    expect(signin).toBeDefined();
    expect(
      await rows(`SELECT user_id FROM credentials WHERE kind = 'signin' AND installation_id = $1`, [site.id]),
    ).toEqual([{ user_id: site.users.agent.id }]);
    const grants = await rows<{ id: number }>(`SELECT id FROM oauth_grants WHERE app_id = $1`, [app.id]);
    expect(grants).toHaveLength(1);

    const exchanged = await counted('/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: request.redirect_uri,
      code_verifier: verifier,
      client_id: app.clientId,
      client_secret: app.clientSecret!,
    });
    expect(exchanged.answer.status).toBe(200);
    // the app read to authenticate it, then one batch: the code spent, the tokens written, the teammate read
    expect(exchanged.trips).toBe(2);
    expect(exchanged.answer.headers.get('cache-control')).toBe('no-store');
    const tokens = (await exchanged.answer.json()) as {
      access_token: string;
      user: { id: number };
      installation: { id: number };
    };
    expect(tokens).toMatchObject({ user: { id: site.users.agent.id }, installation: { id: site.id } });
    expect((await api('/v2/me.json', { key: tokens.access_token })).body.user.id).toBe(site.users.agent.id);

    // a refresh the same: the app read, then one batch; used again, it revokes the grant, in as many
    const refresh = {
      grant_type: 'refresh_token',
      refresh_token: (tokens as unknown as { refresh_token: string }).refresh_token,
      client_id: app.clientId,
      client_secret: app.clientSecret!,
    };
    const refreshed = await counted('/oauth/token', refresh);
    expect(refreshed.answer.status).toBe(200);
    expect(refreshed.trips).toBe(2);
    const reused = await counted('/oauth/token', refresh);
    expect(reused.answer.status).toBe(400);
    expect(await reused.answer.json()).toEqual({
      error: 'invalid_grant',
      error_description:
        'the refresh token was used already: every token of this grant is revoked; ask the teammate to authorize again',
    });
    expect(reused.trips).toBe(2);
    expect(await rows(`SELECT state FROM oauth_grants WHERE app_id = $1`, [app.id])).toEqual([{ state: 'deleted' }]);
  });
});
