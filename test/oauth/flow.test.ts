// The OAuth 2.0 app login flow end to end, driven by oauth4webapi (a certified OAuth client) with
// a teammate consenting in headless Chromium: discovery, authorize, code exchange, a call with
// the token, refresh with rotation and reuse detection, revocation, userinfo, scopes.
import * as oauth from 'oauth4webapi';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { hashSecret } from '../../src/auth/secrets';
import { api } from '../support/api';
import { BROWSER_SETUP_TIMEOUT, launchBrowser } from '../support/browser';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { eventsOf, summary } from '../support/events';
import { TEST_PUBLIC_URL } from '../mail/limits';
import {
  authorizeUrl,
  clientOptions,
  consentInBrowser,
  discover,
  registerApp,
  startCallback,
  toWorker,
  type Callback,
  type RegisteredApp,
} from './support';
import { checkedFetch } from '../support/contract';

let browser: Browser;
let site: SeededInstallation;
let as: oauth.AuthorizationServer;
let callback: Callback;

beforeAll(async () => {
  [browser, site, callback] = await Promise.all([launchBrowser(), newInstallation('oauthflow'), startCallback()]);
  as = await discover();
}, BROWSER_SETUP_TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await callback?.close();
});

/** A code for the app, consented in the browser with `apiKey` (the agent's unless given; null: none, the cookie of `context` signs in). */
async function codeFor(
  app: RegisteredApp,
  options: { context?: BrowserContext; apiKey?: string | null; scope?: string } = {},
) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = authorizeUrl(as, app.clientId, {
    redirectUri: callback.url,
    state,
    scope: options.scope,
    codeChallenge: await oauth.calculatePKCECodeChallenge(verifier),
  });
  const apiKey = options.apiKey === undefined ? site.users.agent.apiKey : (options.apiKey ?? undefined);
  const back = await consentInBrowser(
    options.context ?? browser,
    url,
    callback.url,
    apiKey === undefined ? {} : { apiKey },
  );
  const params = oauth.validateAuthResponse(as, { client_id: app.clientId }, back, state);
  return { params, verifier };
}

async function tokensFor(app: RegisteredApp, options: Parameters<typeof codeFor>[1] = {}) {
  const client = { client_id: app.clientId };
  const { params, verifier } = await codeFor(app, options);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.ClientSecretBasic(app.clientSecret!),
    params,
    callback.url,
    verifier,
    clientOptions,
  );
  return oauth.processAuthorizationCodeResponse(as, client, response);
}

async function refresh(app: RegisteredApp, refreshToken: string) {
  const client = { client_id: app.clientId };
  const response = await oauth.refreshTokenGrantRequest(
    as,
    client,
    oauth.ClientSecretPost(app.clientSecret!),
    refreshToken,
    clientOptions,
  );
  return oauth.processRefreshTokenResponse(as, client, response);
}

const me = (token: string) => api('/v2/me.json', { key: token });

/** The OAuth error a rejected promise carries (oauth4webapi's ResponseBodyError, or for a 401 its WWWAuthenticateChallengeError). */
async function oauthFailure(promise: Promise<unknown>): Promise<{ error: string; status: number }> {
  const failure = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (failure instanceof oauth.WWWAuthenticateChallengeError) {
    return { error: ((await failure.response.json()) as { error: string }).error, status: failure.status };
  }
  expect(failure, 'the request was refused').toBeInstanceOf(oauth.ResponseBodyError);
  return { error: (failure as oauth.ResponseBodyError).error, status: (failure as oauth.ResponseBodyError).status };
}

describe('discovery', () => {
  it('publishes the endpoints at /.well-known/oauth-authorization-server, as oauth4webapi reads them', () => {
    expect(as.issuer).toBe(TEST_PUBLIC_URL);
    expect(as.authorization_endpoint).toBe(`${TEST_PUBLIC_URL}/oauth/authorize`);
    expect(as.token_endpoint).toBe(`${TEST_PUBLIC_URL}/oauth/token`);
    expect(as.revocation_endpoint).toBe(`${TEST_PUBLIC_URL}/oauth/revoke`);
    expect(as.userinfo_endpoint).toBe(`${TEST_PUBLIC_URL}/oauth/userinfo`);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.token_endpoint_auth_methods_supported).toContain('client_secret_post');
    expect(as.scopes_supported).toEqual(['desk', 'desk:read']);
  });
});

describe('the app login flow', () => {
  let app: RegisteredApp;
  beforeAll(async () => {
    app = await registerApp(site, { redirectUris: [callback.url] });
  });

  it('gives a code in the browser, tokens for it, and the token calls the API as the teammate', async () => {
    const tokens = await tokensFor(app);
    expect(tokens.token_type).toBe('bearer'); // oauth4webapi lowercases it; the wire says Bearer
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe('desk');
    expect(tokens.refresh_token).toMatch(/^hdr_/);
    expect(tokens.installation).toEqual({
      id: site.id,
      name: expect.any(String),
      siteName: site.siteName,
      apiEndPoint: TEST_PUBLIC_URL,
    });
    expect(tokens.user).toMatchObject({ id: site.users.agent.id, email: site.users.agent.email, role: 'agent' });
    const called = await me(tokens.access_token);
    expect(called.status, called.text).toBe(200);
    expect(called.body.user.id).toBe(site.users.agent.id);
    // stored as digests only
    const [stored] = await rows(
      `SELECT kind, grant_id, expires_at > now() + interval '59 minutes' AS hour FROM credentials WHERE secret_hash = $1`,
      [await hashSecret(tokens.access_token)],
    );
    expect(stored).toMatchObject({ kind: 'oauth_access_token', hour: true });
    expect(
      await rows(`SELECT 1 FROM oauth_refresh_tokens WHERE token_hash = $1`, [await hashSecret(tokens.refresh_token!)]),
    ).toHaveLength(1);
  });

  it('answers userinfo: who owns the token, its helpdesk, its scopes and app', async () => {
    const tokens = await tokensFor(app);
    const client = { client_id: app.clientId };
    const response = await oauth.userInfoRequest(as, client, tokens.access_token, clientOptions);
    const info = await oauth.processUserInfoResponse(as, client, String(site.users.agent.id), response);
    expect(info).toMatchObject({
      sub: String(site.users.agent.id),
      scopes: ['desk'],
      client_id: app.clientId,
      installation: { id: site.id },
      user: { id: site.users.agent.id },
    });
  });

  it('rotates the refresh token: the old tokens stop, a reused refresh token revokes the grant', async () => {
    const first = await tokensFor(app);
    const second = await refresh(app, first.refresh_token!);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await me(second.access_token)).status).toBe(200);
    expectError(await me(first.access_token), 401);

    // the first refresh token again: a thief's or the app's second use; the whole grant ends
    expect(await oauthFailure(refresh(app, first.refresh_token!))).toEqual({ error: 'invalid_grant', status: 400 });
    expectError(await me(second.access_token), 401);
    expect(await oauthFailure(refresh(app, second.refresh_token!))).toMatchObject({ error: 'invalid_grant' });
    const [grant] = await rows<{ revoked: boolean }>(
      `SELECT g.state = 'deleted' AS revoked FROM oauth_grants g JOIN oauth_refresh_tokens r ON r.grant_id = g.id WHERE r.token_hash = $1`,
      [await hashSecret(second.refresh_token!)],
    );
    expect(grant!.revoked).toBe(true);
  });

  it('revokes (RFC 7009): an access token alone, a refresh token with its grant; unknown tokens alike', async () => {
    const client = { client_id: app.clientId };
    const auth = oauth.ClientSecretBasic(app.clientSecret!);
    const tokens = await tokensFor(app);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, auth, tokens.access_token, clientOptions),
    );
    expectError(await me(tokens.access_token), 401);
    const next = await refresh(app, tokens.refresh_token!); // the grant stands
    expect((await me(next.access_token)).status).toBe(200);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, auth, next.refresh_token!, {
        ...clientOptions,
        additionalParameters: { token_type_hint: 'refresh_token' },
      }),
    );
    expectError(await me(next.access_token), 401);
    expect(await oauthFailure(refresh(app, next.refresh_token!))).toMatchObject({ error: 'invalid_grant' });
    // nothing to revoke: the same answer
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, auth, 'hdo_not-a-token', clientOptions),
    );
  });

  it('signs the teammate in for a week: a second consent needs no key; revoking the key signs them out', async () => {
    const context = await browser.newContext();
    try {
      const key = await api('/v2/apikeys.json', {
        method: 'POST',
        key: site.users.admin.apiKey,
        body: { apikey: { name: 'for the authorize page' } },
      });
      expect(key.status, key.text).toBe(201);
      const first = await tokensFor(app, { context, apiKey: key.body.apikey.secret });
      expect(first.user).toMatchObject({ id: site.users.admin.id });
      const second = await tokensFor(app, { context, apiKey: null }); // no key entered: the cookie's teammate
      expect(second.user).toMatchObject({ id: site.users.admin.id });
      const cookies = await context.cookies();
      const signin = cookies.find((cookie) => cookie.name === 'hd_signin')!;
      expect(signin).toMatchObject({ path: '/oauth/authorize', httpOnly: true, sameSite: 'Lax' });
      // the cookie is no API credential
      expectError(await api('/v2/me.json', { key: signin.value }), 401);
      // the key it came from revoked, the page asks for a key again
      expect(
        (await api(`/v2/apikeys/${key.body.apikey.id}.json`, { method: 'DELETE', key: site.users.admin.apiKey }))
          .status,
      ).toBe(204);
      const page = await context.newPage();
      await page.goto(
        toWorker(
          authorizeUrl(as, app.clientId, {
            redirectUri: callback.url,
            codeChallenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
          }),
        ),
      );
      expect(await page.locator('label[for=api_key]').textContent()).toBe('Your API key');
      await page.close();
    } finally {
      await context.close();
    }
  });

  it('ends every token of an app that is deleted', async () => {
    const doomed = await registerApp(site, { redirectUris: [callback.url] });
    const tokens = await tokensFor(doomed);
    expect((await me(tokens.access_token)).status).toBe(200);
    const [grant] = await rows<{ id: number }>('SELECT id FROM oauth_grants WHERE app_id = $1', [doomed.id]);
    const deleted = await api(`/v2/oauthapps/${doomed.id}.json`, { method: 'DELETE', key: site.users.owner.apiKey });
    expect(deleted.status).toBe(204);
    // the grant ends with it, and says so as every deleted record does
    expect(summary(await eventsOf(site.id, 'oauthgrants', grant!.id))).toContain('oauthgrants:deleted');
    expectError(await me(tokens.access_token), 401);
    expect(await oauthFailure(refresh(doomed, tokens.refresh_token!))).toMatchObject({
      error: 'invalid_client',
      status: 401,
    });
  });
});

describe('a public app', () => {
  it('logs in with PKCE and no secret; without a code_challenge it is sent back with invalid_request', async () => {
    const app = await registerApp(site, { redirectUris: [callback.url], clientType: 'public' });
    expect(app.clientSecret).toBeNull();
    const client = { client_id: app.clientId };

    const unprotected = authorizeUrl(as, app.clientId, { redirectUri: callback.url, state: 'st-1' });
    const back = await consentFailure(unprotected);
    expect(back.get('error')).toBe('invalid_request');
    expect(back.get('state')).toBe('st-1');

    const { params, verifier } = await codeFor(app);
    const wrong = oauth.generateRandomCodeVerifier();
    expect(
      await oauthFailure(
        oauth
          .authorizationCodeGrantRequest(as, client, oauth.None(), params, callback.url, wrong, clientOptions)
          .then((r) => oauth.processAuthorizationCodeResponse(as, client, r)),
      ),
    ).toMatchObject({ error: 'invalid_grant' });
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.None(),
        params,
        callback.url,
        verifier,
        clientOptions,
      ),
    );
    expect((await me(tokens.access_token)).status).toBe(200);
  });
});

describe('scopes', () => {
  it('a desk:read token reads and is refused a write with 403 naming the scope', async () => {
    const app = await registerApp(site, { redirectUris: [callback.url], scopes: ['desk', 'desk:read'] });
    const tokens = await tokensFor(app, { scope: 'desk:read', apiKey: site.users.owner.apiKey });
    expect(tokens.scope).toBe('desk:read');
    expect((await api('/v2/companies.json', { key: tokens.access_token })).status).toBe(200);
    const write = await api('/v2/companies.json', {
      method: 'POST',
      key: tokens.access_token,
      body: { company: { name: 'Read Only Ltd' } },
    });
    expectError(write, 403, undefined, /desk scope/);
    expect(
      await rows(`SELECT 1 FROM companies WHERE installation_id = $1 AND name = 'Read Only Ltd'`, [site.id]),
    ).toHaveLength(0);
  });

  it('an app asking for a scope it may not is sent back with invalid_scope', async () => {
    const app = await registerApp(site, { redirectUris: [callback.url], scopes: ['desk:read'] });
    const back = await consentFailure(
      authorizeUrl(as, app.clientId, { redirectUri: callback.url, scope: 'desk', state: 'st-2' }),
    );
    expect(back.get('error')).toBe('invalid_scope');
    expect(back.get('state')).toBe('st-2');
  });

  it('an OAuth token cannot make an API key or an app', async () => {
    const app = await registerApp(site, { redirectUris: [callback.url] });
    const tokens = await tokensFor(app, { apiKey: site.users.owner.apiKey });
    expectError(
      await api('/v2/apikeys.json', { method: 'POST', key: tokens.access_token, body: { apikey: { name: 'escape' } } }),
      403,
      undefined,
      /API key/,
    );
    expectError(
      await api('/v2/oauthapps.json', {
        method: 'POST',
        key: tokens.access_token,
        body: { oauthapp: { name: 'x', redirectUris: [callback.url] } },
      }),
      403,
    );
  });
});

/** An authorize request the page refuses at once: it redirects to the callback with an error (no page). */
async function consentFailure(url: URL): Promise<URLSearchParams> {
  const answer = await checkedFetch(toWorker(url), { redirect: 'manual' });
  expect(answer.status).toBe(303);
  const location = new URL(answer.headers.get('location')!);
  expect(location.href.startsWith(callback.url)).toBe(true);
  expect(location.searchParams.get('iss')).toBe(TEST_PUBLIC_URL);
  return location.searchParams;
}
