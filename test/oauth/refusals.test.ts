// Every refusal of the OAuth endpoints, as RFC 6749, RFC 7636 and RFC 7009 name them, and the
// registration of apps. Codes are got by posting the consent form as the browser would.
import { createHash, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import type { SeededInstallation } from '../../scripts/seed';
import { hashSecret } from '../../src/auth/secrets';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { TEST_PUBLIC_URL } from '../mail/limits';
import { basicAuth, post, registerApp, type RegisteredApp } from './support';
import { checkedFetch } from '../support/contract';

const REDIRECT = 'https://app.example.test/callback';
const OTHER_REDIRECT = 'https://app.example.test/other';

let site: SeededInstallation;
let other: SeededInstallation;
let app: RegisteredApp;

beforeAll(async () => {
  [site, other] = await Promise.all([newInstallation('oauthrefusals'), newInstallation('oauthother')]);
  app = await registerApp(site, { redirectUris: [REDIRECT, OTHER_REDIRECT] });
});

const verifier = () => randomBytes(32).toString('base64url');
const challengeOf = (value: string) => createHash('sha256').update(value).digest('base64url');

/** The PKCE of this file's codes (every app must send a challenge); a test about PKCE makes its own. */
const VERIFIER = verifier();
const PKCE = { code_challenge: challengeOf(VERIFIER), code_challenge_method: 'S256' };

/** The authorize page's answer to a GET with these parameters (no redirect followed). */
function authorizePage(parameters: Record<string, string>, headers: Record<string, string> = {}) {
  return checkedFetch(`${inject('workerUrl')}/oauth/authorize?${new URLSearchParams(parameters)}`, {
    redirect: 'manual',
    headers,
  });
}

/**
 * The consent form posted as the page posts it: the page is fetched first, for the form's token
 * and its cookie (`token: false` leaves the token out, a string sends that one instead; `page`:
 * the request the page was opened for, when the form was changed before it was posted).
 */
async function consent(
  parameters: Record<string, string>,
  headers: Record<string, string> = {},
  options: { token?: false | string; page?: Record<string, string> } = {},
) {
  const { api_key: _, decision: __, ...request } = parameters;
  const page = await authorizePage(options.page ?? request);
  expect(page.status, await page.clone().text()).toBe(200);
  const token = /name="consent_token" value="([^"]+)"/.exec(await page.text())![1]!;
  const cookie = (page.headers as unknown as { getSetCookie(): string[] })
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  const sent: Record<string, string> = options.token === false ? {} : { consent_token: options.token ?? token };
  return checkedFetch(`${inject('workerUrl')}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
    body: new URLSearchParams({ ...parameters, ...sent }).toString(),
  });
}

interface CodeAsk {
  client?: RegisteredApp;
  redirectUri?: string | null;
  /** the file's (`PKCE`) unless given */
  challenge?: string;
  scope?: string;
  apiKey?: string;
}

/** A code, allowed by the agent on the consent form. */
async function codeFor(ask: CodeAsk = {}): Promise<string> {
  const client = ask.client ?? app;
  const parameters: Record<string, string> = {
    client_id: client.clientId,
    response_type: 'code',
    decision: 'allow',
    api_key: ask.apiKey ?? site.users.agent.apiKey,
    state: 'xyz',
    ...PKCE,
    ...(ask.challenge ? { code_challenge: ask.challenge } : {}),
  };
  if (ask.redirectUri !== null) parameters.redirect_uri = ask.redirectUri ?? REDIRECT;
  if (ask.scope) parameters.scope = ask.scope;
  const answer = await consent(parameters);
  expect(answer.status, await answer.clone().text()).toBe(303);
  const location = new URL(answer.headers.get('location')!);
  expect(location.searchParams.get('state')).toBe('xyz');
  expect(location.searchParams.get('iss')).toBe(TEST_PUBLIC_URL);
  return location.searchParams.get('code')!;
}

/** The token request's parameters for a code of the file's PKCE, sent back to `REDIRECT`. */
const exchangeOf = (code: string) => ({
  grant_type: 'authorization_code',
  code,
  redirect_uri: REDIRECT,
  code_verifier: VERIFIER,
});

/** A token request authenticated by the app's secret in the body. */
function token(parameters: Record<string, string>, client: RegisteredApp = app, options: { json?: boolean } = {}) {
  return post(
    '/oauth/token',
    { client_id: client.clientId, client_secret: client.clientSecret!, ...parameters },
    options,
  );
}

function expectOAuthError(
  answer: { status: number; headers: Headers; body: any },
  status: number,
  error: string,
  detail?: RegExp,
) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(Object.keys(answer.body)).toEqual(['error', 'error_description']);
  expect(answer.body.error).toBe(error);
  if (detail) expect(answer.body.error_description).toMatch(detail);
  expect(answer.headers.get('cache-control')).toBe('no-store');
  if (status === 401) expect(answer.headers.get('www-authenticate')).toMatch(/^Basic /);
}

const me = (accessToken: string) => api('/v2/me.json', { key: accessToken });

describe('the token endpoint', () => {
  it('exchanges a code sent form-encoded or as JSON, with the secret in HTTP Basic or the body', async () => {
    const byForm = await post('/oauth/token', exchangeOf(await codeFor()), {
      headers: { authorization: basicAuth(app.clientId, app.clientSecret!) },
    });
    expect(byForm.status, JSON.stringify(byForm.body)).toBe(200);
    expect(byForm.headers.get('cache-control')).toBe('no-store');
    expect(byForm.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'desk',
      installation: { id: site.id, apiEndPoint: TEST_PUBLIC_URL },
      user: { id: site.users.agent.id },
    });
    const byJson = await token(exchangeOf(await codeFor()), app, { json: true });
    expect(byJson.status, JSON.stringify(byJson.body)).toBe(200);
    expect((await me(byJson.body.access_token)).status).toBe(200);
  });

  it('names a missing or unknown grant_type', async () => {
    expectOAuthError(await token({}), 400, 'invalid_request', /grant_type/);
    expectOAuthError(
      await token({ grant_type: 'password', username: 'a', password: 'b' }),
      400,
      'unsupported_grant_type',
    );
    expectOAuthError(await token({ grant_type: 'client_credentials' }), 400, 'unsupported_grant_type');
  });

  it('refuses a client it cannot authenticate with 401 invalid_client, and counts nothing issued', async () => {
    const exchange = exchangeOf(await codeFor());
    expectOAuthError(await post('/oauth/token', { ...exchange, client_id: 'hdc_nobody' }), 401, 'invalid_client');
    expectOAuthError(
      await post('/oauth/token', { ...exchange, client_id: app.clientId }),
      401,
      'invalid_client',
      /secret/,
    );
    expectOAuthError(
      await post('/oauth/token', { ...exchange, client_id: app.clientId, client_secret: 'hds_wrong' }),
      401,
      'invalid_client',
    );
    expectOAuthError(
      await post('/oauth/token', exchange, { headers: { authorization: basicAuth(app.clientId, 'hds_wrong') } }),
      401,
      'invalid_client',
    );
    expectOAuthError(
      await post('/oauth/token', exchange, { headers: { authorization: `Bearer ${site.users.owner.apiKey}` } }),
      401,
      'invalid_client',
    );
    expectOAuthError(await post('/oauth/token', exchange), 401, 'invalid_client', /client_id/);
    // the secret twice: RFC 6749 2.3 allows one method a request
    expectOAuthError(
      await post(
        '/oauth/token',
        { ...exchange, client_secret: app.clientSecret! },
        { headers: { authorization: basicAuth(app.clientId, app.clientSecret!) } },
      ),
      400,
      'invalid_request',
      /once/,
    );
    // none of those spent the code
    expect((await token(exchange)).status).toBe(200);
  });

  it("refuses codes that are missing, unknown, another app's, expired or sent back to another redirect URI", async () => {
    const second = await registerApp(site, { redirectUris: [REDIRECT] });
    const { code: _, ...noCode } = exchangeOf('');
    expectOAuthError(await token(noCode), 400, 'invalid_request', /code is required/);
    expectOAuthError(await token(exchangeOf('hda_unknown')), 400, 'invalid_grant');
    const exchange = exchangeOf(await codeFor());
    const { redirect_uri: __, ...noRedirect } = exchange;
    expectOAuthError(await token(exchange, second), 400, 'invalid_grant');
    expectOAuthError(await token({ ...exchange, redirect_uri: OTHER_REDIRECT }), 400, 'invalid_grant', /redirect_uri/);
    expectOAuthError(await token(noRedirect), 400, 'invalid_grant', /redirect_uri/);
    expect((await token(exchange)).status).toBe(200);

    const late = await codeFor();
    await rows(`UPDATE oauth_codes SET expires_at = now() - interval '1 second' WHERE code_hash = $1`, [
      await hashSecret(late),
    ]);
    expectOAuthError(await token(exchangeOf(late)), 400, 'invalid_grant', /expired/);
  });

  it('lets a code live at most 10 minutes and work once: used again, it revokes what it gave', async () => {
    const code = await codeFor();
    const [stored] = await rows<{ minutes: number }>(
      `SELECT round(extract(epoch FROM expires_at - now()) / 60)::int AS minutes FROM oauth_codes WHERE code_hash = $1`,
      [await hashSecret(code)],
    );
    expect(stored!.minutes).toBe(10);
    const first = await token(exchangeOf(code));
    expect(first.status).toBe(200);
    expect((await me(first.body.access_token)).status).toBe(200);
    expectOAuthError(await token(exchangeOf(code)), 400, 'invalid_grant', /used already/);
    expectError(await me(first.body.access_token), 401);
    expectOAuthError(
      await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token }),
      400,
      'invalid_grant',
    );
  });

  it("checks PKCE: the verifier of the challenge is required of every code, a confidential app's too", async () => {
    const secret = verifier();
    const { code_verifier: _, ...exchange } = exchangeOf(await codeFor({ challenge: challengeOf(secret) }));
    expectOAuthError(await token(exchange), 400, 'invalid_request', /code_verifier is required/);
    expectOAuthError(await token({ ...exchange, code_verifier: verifier() }), 400, 'invalid_grant', /does not match/);
    expect((await token({ ...exchange, code_verifier: secret })).status).toBe(200);

    // a code issued before PKCE was required of every app (it has no challenge) gives nothing, whatever the verifier
    const old = await codeFor();
    await rows(`UPDATE oauth_codes SET code_challenge = NULL WHERE code_hash = $1`, [await hashSecret(old)]);
    expectOAuthError(await token(exchangeOf(old)), 400, 'invalid_grant', /without a PKCE code_challenge/);
  });

  it('refuses a verifier outside RFC 7636 (43 to 128 unreserved characters), even one the challenge was made from', async () => {
    for (const odd of [
      'a'.repeat(42),
      'a'.repeat(129),
      `${'a'.repeat(42)}+`,
      `${'a'.repeat(42)} `,
      `${'a'.repeat(42)}/`,
    ]) {
      const code = await codeFor({ challenge: challengeOf(odd) });
      expectOAuthError(await token({ ...exchangeOf(code), code_verifier: odd }), 400, 'invalid_request', /43 to 128/);
      // the code stands: its proper verifier would still be heard (here there is none)
      expect(
        await rows(`SELECT 1 FROM oauth_codes WHERE code_hash = $1 AND used_at IS NULL`, [await hashSecret(code)]),
      ).toHaveLength(1);
    }
  });

  it('never takes the challenge as its own verifier: a code stolen with its authorize link gives nothing', async () => {
    // the attacker saw the authorize link (history, logs, a proxy) and the code: both carry only the challenge
    const challenge = challengeOf(verifier());
    const stolen = async (client: RegisteredApp) => {
      const code = await codeFor({ client, challenge });
      return { ...exchangeOf(code), code_verifier: challenge };
    };
    // a confidential app authenticated by its own secret, in the body (as the platform's Go client sends it) or as HTTP Basic
    expectOAuthError(await token(await stolen(app)), 400, 'invalid_grant', /code_challenge itself/);
    expectOAuthError(
      await post('/oauth/token', await stolen(app), {
        headers: { authorization: basicAuth(app.clientId, app.clientSecret!) },
      }),
      400,
      'invalid_grant',
      /code_challenge itself/,
    );
    const open = await registerApp(site, { redirectUris: [REDIRECT], clientType: 'public' });
    expectOAuthError(
      await post('/oauth/token', { ...(await stolen(open)), client_id: open.clientId }),
      400,
      'invalid_grant',
      /code_challenge itself/,
    );
    // nothing was issued to the app for those codes
    expect(
      await rows(`SELECT 1 FROM oauth_refresh_tokens r JOIN oauth_grants g ON g.id = r.grant_id WHERE g.app_id = $1`, [
        open.id,
      ]),
    ).toHaveLength(0);
  });

  it("refuses refresh tokens that are missing, another app's, or asked for more than granted", async () => {
    const tokens = (await token(exchangeOf(await codeFor()))).body;
    const second = await registerApp(site, { redirectUris: [REDIRECT] });
    expectOAuthError(await token({ grant_type: 'refresh_token' }), 400, 'invalid_request', /refresh_token is required/);
    expectOAuthError(
      await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, second),
      400,
      'invalid_grant',
    );
    expectOAuthError(
      await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'desk admin' }),
      400,
      'invalid_scope',
      /admin/,
    );
    const narrowed = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      scope: 'desk:read',
    });
    expect(narrowed.status, JSON.stringify(narrowed.body)).toBe(200);
    expect(narrowed.body.scope).toBe('desk:read');
    expectOAuthError(
      await token({ grant_type: 'refresh_token', refresh_token: narrowed.body.refresh_token, scope: 'desk' }),
      400,
      'invalid_scope',
    );
  });

  it('answers malformed bodies with invalid_request, never a 500', async () => {
    const url = `${inject('workerUrl')}/oauth/token`;
    const send = async (body: string, type: string) => {
      const response = await checkedFetch(url, { method: 'POST', headers: { 'content-type': type }, body });
      return { status: response.status, headers: response.headers, body: await response.json() };
    };
    expectOAuthError(
      await send('grant_type=authorization_code&grant_type=refresh_token', 'application/x-www-form-urlencoded'),
      400,
      'invalid_request',
    );
    expectOAuthError(await send('{"grant_type": ', 'application/json'), 400, 'invalid_request', /JSON/);
    expectOAuthError(await send(`${'['.repeat(100)}${']'.repeat(100)}`, 'application/json'), 400, 'invalid_request');
    expectOAuthError(await send('{"grant_type": 7}', 'application/json'), 400, 'invalid_request');
    expectOAuthError(await send('grant_type=authorization_code', 'text/plain'), 400, 'invalid_request');
    // NUL, which Postgres cannot hold, is refused before anything is looked up
    expectOAuthError(
      await send('grant_type=authorization_code&code=x&client_id=hdc_%00', 'application/x-www-form-urlencoded'),
      400,
      'invalid_request',
      /NUL/,
    );
  });
});

describe('the revocation endpoint', () => {
  it('authenticates the client, and needs a token', async () => {
    expectOAuthError(
      await post('/oauth/revoke', { token: 'x', client_id: app.clientId, client_secret: 'hds_wrong' }),
      401,
      'invalid_client',
    );
    expectOAuthError(
      await post('/oauth/revoke', { client_id: app.clientId, client_secret: app.clientSecret! }),
      400,
      'invalid_request',
      /token/,
    );
  });

  it("leaves another app's token alone, and answers 200 alike", async () => {
    const tokens = (await token(exchangeOf(await codeFor()))).body;
    const second = await registerApp(site, { redirectUris: [REDIRECT] });
    const revoked = await post('/oauth/revoke', {
      token: tokens.access_token,
      client_id: second.clientId,
      client_secret: second.clientSecret!,
    });
    expect(revoked.status).toBe(200);
    expect((await me(tokens.access_token)).status).toBe(200);
  });
});

describe('the authorize page', () => {
  const page = async (response: Response) => ({
    status: response.status,
    location: response.headers.get('location'),
    html: await response.text(),
    headers: response.headers,
  });

  it('shows, and never redirects, a request naming no app, an unknown one, or a redirect URI it did not register', async () => {
    // the open-redirect attack: a link on our address that would send the browser to the attacker's page
    const foreign = await registerApp(other, { redirectUris: ['https://evil.example.test/callback'] });
    const requests: Record<string, string>[] = [
      { response_type: 'code' },
      { response_type: 'code', client_id: 'hdc_nobody', redirect_uri: REDIRECT },
      { response_type: 'code', client_id: '', redirect_uri: 'https://evil.example.test/callback' },
      // another installation's app's URI: registered, but not by this app
      { response_type: 'code', client_id: app.clientId, redirect_uri: 'https://evil.example.test/callback' },
      { response_type: 'code', client_id: foreign.clientId, redirect_uri: REDIRECT },
      { response_type: 'code', client_id: app.clientId, redirect_uri: `${REDIRECT}/../x` },
      { response_type: 'code', client_id: app.clientId, redirect_uri: `${REDIRECT}?next=https://evil.example.test/` },
      { response_type: 'code', client_id: app.clientId, redirect_uri: `${REDIRECT}#x` },
      { response_type: 'code', client_id: app.clientId, redirect_uri: REDIRECT.toUpperCase() },
      {
        response_type: 'code',
        client_id: app.clientId,
        redirect_uri: 'https://app.example.test@evil.example.test/callback',
      },
      { response_type: 'code', client_id: app.clientId, redirect_uri: 'not a URI' },
      { response_type: 'code', client_id: app.clientId, redirect_uri: '' },
      { response_type: 'code', client_id: app.clientId }, // two registered: which one?
    ];
    // every other check would fail too (no PKCE, another response type, a scope it may not have): still a page
    const alsoWrong: Record<string, string>[] = [
      {},
      { response_type: 'token' },
      { scope: 'admin', code_challenge: 'x', code_challenge_method: 'plain' },
    ];
    for (const parameters of requests) {
      for (const wrong of alsoWrong) {
        const sent = { ...parameters, ...wrong };
        const shown = await page(await authorizePage(sent));
        expect(shown.status, JSON.stringify(sent)).toBe(400);
        expect(shown.location).toBeNull();
        expect(shown.headers.get('content-type')).toMatch(/^text\/html/);
        expect(shown.html).toContain('does not work');
      }
    }
  });

  it('never redirects the consent form to a redirect URI the app did not register, whatever it decides', async () => {
    const before = await rows(`SELECT count(*)::int AS n FROM oauth_grants WHERE app_id = $1`, [app.id]);
    const opened = { client_id: app.clientId, response_type: 'code', redirect_uri: REDIRECT, ...PKCE };
    for (const decision of ['deny', 'allow']) {
      const forged = {
        ...opened,
        redirect_uri: 'https://evil.example.test/callback',
        decision,
        api_key: site.users.agent.apiKey,
      };
      const answer = await page(await consent(forged, {}, { page: opened }));
      expect(answer.status, decision).toBe(400);
      expect(answer.location).toBeNull();
    }
    expect(await rows(`SELECT count(*)::int AS n FROM oauth_grants WHERE app_id = $1`, [app.id])).toEqual(before);
  });

  it('sends other problems back to the app with the error and state', async () => {
    const base = { client_id: app.clientId, redirect_uri: REDIRECT, state: 's t&8', ...PKCE };
    const cases: [Record<string, string>, string][] = [
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{}, 'invalid_request'],
      [{ response_type: 'code', scope: 'admin' }, 'invalid_scope'],
      [{ response_type: 'code', code_challenge: 'short', code_challenge_method: 'S256' }, 'invalid_request'],
    ];
    for (const [extra, error] of cases) {
      const shown = await page(await authorizePage({ ...base, ...extra }));
      expect(shown.status, JSON.stringify(extra)).toBe(303);
      const location = new URL(shown.location!);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect(location.searchParams.get('error')).toBe(error);
      expect(location.searchParams.get('state')).toBe('s t&8');
      expect(location.searchParams.get('iss')).toBe(TEST_PUBLIC_URL);
    }
  });

  it("refuses an authorize request without PKCE S256, a confidential app's too: no page, no code", async () => {
    expect(app.clientSecret).toMatch(/^hds_/); // confidential
    const base = { client_id: app.clientId, response_type: 'code', redirect_uri: REDIRECT, state: 'p' };
    const plainVerifier = verifier();
    const unprotected: Record<string, string>[] = [
      {},
      // plain: the challenge is the verifier, so whoever sees the link can redeem the code
      { code_challenge: plainVerifier, code_challenge_method: 'plain' },
      { code_challenge: plainVerifier }, // no method is plain (RFC 7636 4.3)
      { code_challenge: challengeOf(plainVerifier) },
      { code_challenge_method: 'S256' },
      { code_challenge: challengeOf(plainVerifier), code_challenge_method: 's256' },
    ];
    const before = await rows(`SELECT count(*)::int AS n FROM oauth_grants WHERE app_id = $1`, [app.id]);
    for (const pkce of unprotected) {
      const shown = await page(await authorizePage({ ...base, ...pkce }));
      expect(shown.status, JSON.stringify(pkce)).toBe(303);
      const location = new URL(shown.location!);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('error_description')).toMatch(/code_challenge/);
      expect(location.searchParams.get('state')).toBe('p');
      expect(location.searchParams.has('code')).toBe(false);
    }
    // the consent form posted without PKCE (the page would not have been shown): refused the same, nothing granted
    const posted = await page(
      await consent(
        { ...base, decision: 'allow', api_key: site.users.agent.apiKey },
        {},
        { page: { ...base, ...PKCE } },
      ),
    );
    expect(posted.status).toBe(303);
    expect(new URL(posted.location!).searchParams.get('error')).toBe('invalid_request');
    expect(new URL(posted.location!).searchParams.has('code')).toBe(false);
    expect(await rows(`SELECT count(*)::int AS n FROM oauth_grants WHERE app_id = $1`, [app.id])).toEqual(before);
  });

  it('is a page that cannot be framed or cached, with the app named safely', async () => {
    const odd = await registerApp(site, { name: '<img src=x onerror=alert(1)>', redirectUris: [REDIRECT] });
    const shown = await page(
      await authorizePage({ response_type: 'code', client_id: odd.clientId, state: '"><script>', ...PKCE }),
    );
    expect(shown.status).toBe(200);
    expect(shown.html).not.toContain('<img src=x');
    expect(shown.html).not.toContain('"><script>');
    expect(shown.html).toContain('&lt;img src=x');
    expect(shown.headers.get('x-frame-options')).toBe('DENY');
    expect(shown.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(shown.headers.get('cache-control')).toBe('no-store');
  });

  it('takes a loopback redirect URI on any port (RFC 8252), and nothing else different', async () => {
    const native = await registerApp(site, { redirectUris: ['http://127.0.0.1/callback'], clientType: 'public' });
    const ask = (redirectUri: string) =>
      authorizePage({ response_type: 'code', client_id: native.clientId, redirect_uri: redirectUri, ...PKCE });
    expect((await ask('http://127.0.0.1:49152/callback')).status).toBe(200);
    for (const malformed of [
      'http://127.0.0.1:49152/elsewhere',
      'http://127.0.0.1:49152/callback#x',
      'http://user@127.0.0.1:49152/callback',
      'http://127.0.0.1:49152/callback?next=x',
      'http://localhost:49152/callback',
      'https://127.0.0.1:49152/callback',
      'http://127.0.0.2:49152/callback',
    ]) {
      const shown = await page(await ask(malformed));
      expect(shown.status, malformed).toBe(400);
      expect(shown.location).toBeNull();
    }
  });

  it('sends a denial back as access_denied, and grants nothing', async () => {
    const before = await rows(`SELECT count(*)::int AS n FROM oauth_grants WHERE app_id = $1`, [app.id]);
    const denied = await consent({
      client_id: app.clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      state: 'q',
      ...PKCE,
      decision: 'deny',
    });
    expect(denied.status).toBe(303);
    const location = new URL(denied.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('q');
    expect(await rows(`SELECT count(*)::int AS n FROM oauth_grants WHERE app_id = $1`, [app.id])).toEqual(before);
  });

  it('shows the page again, without a code, for a key that is wrong, of another helpdesk, or an OAuth token', async () => {
    const form = { client_id: app.clientId, response_type: 'code', redirect_uri: REDIRECT, ...PKCE, decision: 'allow' };
    const accessToken = (await token(exchangeOf(await codeFor()))).body.access_token;
    for (const apiKey of ['hd_wrong', other.users.owner.apiKey, accessToken, '']) {
      const shown = await page(await consent({ ...form, api_key: apiKey }));
      expect(shown.status, apiKey).toBe(401);
      expect(shown.location).toBeNull();
      expect(shown.html).toContain('role="alert"');
    }
  });

  it('takes the form only from its own page: its token and cookie, same-origin', async () => {
    const form = {
      client_id: app.clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      ...PKCE,
      decision: 'allow',
      api_key: site.users.agent.apiKey,
    };
    const refused = [
      await consent(form, { 'sec-fetch-site': 'cross-site' }),
      await consent(form, { 'sec-fetch-site': 'same-site' }),
      await consent(form, {}, { token: false }),
      await consent(form, {}, { token: 'forged-token-of-another-page' }),
      // no cookie at all: a form another site's page made
      await checkedFetch(`${inject('workerUrl')}/oauth/authorize`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...form, consent_token: 'x' }).toString(),
      }),
    ];
    for (const answer of refused) {
      const shown = await page(answer);
      expect(shown.status).toBe(403);
      expect(shown.location).toBeNull();
    }
    expect((await consent(form, { 'sec-fetch-site': 'same-origin' })).status).toBe(303);
  });

  it('keeps two consent pages open side by side apart: each form goes through', async () => {
    const request = { client_id: app.clientId, response_type: 'code', redirect_uri: REDIRECT, ...PKCE };
    const pages = await Promise.all([authorizePage(request), authorizePage(request)]);
    const forms = await Promise.all(
      pages.map(async (shown) => ({
        token: /name="consent_token" value="([^"]+)"/.exec(await shown.text())![1]!,
        cookie: (shown.headers as unknown as { getSetCookie(): string[] })
          .getSetCookie()
          .map((line) => line.split(';')[0])
          .join('; '),
      })),
    );
    const jar = forms.map((form) => form.cookie).join('; ');
    for (const form of forms) {
      const sent = await checkedFetch(`${inject('workerUrl')}/oauth/authorize`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar },
        body: new URLSearchParams({
          ...request,
          decision: 'allow',
          api_key: site.users.agent.apiKey,
          consent_token: form.token,
        }).toString(),
      });
      expect(sent.status).toBe(303);
    }
  });
});

describe('registering apps', () => {
  it('is for owners and admins; the secret is shown once and stored as a digest', async () => {
    expectError(
      await api('/v2/oauthapps.json', {
        method: 'POST',
        key: site.users.agent.apiKey,
        body: { oauthapp: { name: 'x', redirectUris: [REDIRECT] } },
      }),
      403,
    );
    const created = await api('/v2/oauthapps.json', {
      method: 'POST',
      key: site.users.admin.apiKey,
      body: { name: 'Admin App', redirectUris: [REDIRECT] },
    });
    expect(created.status, created.text).toBe(201);
    const { id, clientId, clientSecret } = created.body.oauthapp;
    expect(created.body.oauthapp).toMatchObject({
      clientType: 'confidential',
      scopes: ['desk'],
      secretPrefix: clientSecret.slice(0, 8),
    });
    const [stored] = await rows<{ secret_hash: string }>(`SELECT secret_hash FROM oauth_apps WHERE id = $1`, [id]);
    expect(stored!.secret_hash).toBe(await hashSecret(clientSecret));
    const read = await api(`/v2/oauthapps/${id}.json`, { key: site.users.owner.apiKey });
    expect(read.status).toBe(200);
    expect(read.body.oauthapp.clientId).toBe(clientId);
    expect(JSON.stringify(read.body)).not.toContain(clientSecret);
    expectError(await api(`/v2/oauthapps/${id}.json`, { key: other.users.owner.apiKey }), 404);
    expectError(await api(`/v2/oauthapps/${id}.json`, { key: site.users.agent.apiKey }), 403);
  });

  it('refuses redirect URIs a browser could be sent somewhere harmful by', async () => {
    for (const uri of [
      'http://app.example.test/cb',
      'javascript:alert(1)',
      'data:text/html,x',
      'https://app.example.test/cb#frag',
      '/relative',
      'https://user:pw@app.example.test/cb',
    ]) {
      expectError(
        await api('/v2/oauthapps.json', {
          method: 'POST',
          key: site.users.owner.apiKey,
          body: { oauthapp: { name: 'x', redirectUris: [uri] } },
        }),
        400,
        'oauthapp.redirectUris[0]',
      );
    }
    expectError(
      await api('/v2/oauthapps.json', {
        method: 'POST',
        key: site.users.owner.apiKey,
        body: { oauthapp: { name: 'x', redirectUris: [] } },
      }),
      400,
      'oauthapp.redirectUris',
    );
    expectError(
      await api('/v2/oauthapps.json', {
        method: 'POST',
        key: site.users.owner.apiKey,
        body: { oauthapp: { name: 'x', redirectUris: [REDIRECT], scopes: ['admin'] } },
      }),
      400,
      'oauthapp.scopes[0]',
    );
    const native = await registerApp(site, { redirectUris: ['com.example.app:/callback', 'http://localhost:8080/cb'] });
    expect(native.clientId).toMatch(/^hdc_/);
  });

  it('changes its redirect URIs: a request to a removed one is shown a problem', async () => {
    const changing = await registerApp(site, { redirectUris: [REDIRECT, OTHER_REDIRECT] });
    const patched = await api(`/v2/oauthapps/${changing.id}.json`, {
      method: 'PATCH',
      key: site.users.owner.apiKey,
      body: { oauthapp: { redirectUris: [REDIRECT] } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.oauthapp.redirectUris).toEqual([REDIRECT]);
    expect(
      (
        await authorizePage({
          response_type: 'code',
          client_id: changing.clientId,
          redirect_uri: OTHER_REDIRECT,
          ...PKCE,
        })
      ).status,
    ).toBe(400);
    expect((await authorizePage({ response_type: 'code', client_id: changing.clientId, ...PKCE })).status).toBe(200);
  });
});

describe('scopes', () => {
  /** Tokens for an app, from a code the agent allowed on the form. */
  async function tokensOf(client: RegisteredApp, scope?: string) {
    const exchanged = await token(exchangeOf(await codeFor({ client, ...(scope ? { scope } : {}) })), client);
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    return exchanged.body as { access_token: string; refresh_token: string; scope: string };
  }

  /** The status a room's socket answers its upgrade with, for this credential. */
  function socketStatus(socketUrl: string, credential: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(socketUrl, { headers: { authorization: `Bearer ${credential}` } });
      socket.once('unexpected-response', (_request, response) => {
        resolve(response.statusCode ?? 0);
        socket.terminate();
      });
      socket.once('open', () => {
        resolve(101);
        socket.close();
      });
      socket.once('error', reject);
    });
  }

  it('a desk:read token may not start a conversation nor join a room to write in it', async () => {
    const reader = await registerApp(site, { redirectUris: [REDIRECT], scopes: ['desk:read'] });
    const tokens = await tokensOf(reader);
    expect(tokens.scope).toBe('desk:read');
    const conversation = { conversation: { contact: { name: 'Scoped Sam' } } };
    expectError(
      await api('/v2/conversations.json', { method: 'POST', key: tokens.access_token, body: conversation }),
      403,
      undefined,
      /desk scope/,
    );
    const started = await api('/v2/conversations.json', {
      method: 'POST',
      key: site.users.agent.apiKey,
      body: conversation,
    });
    expect(started.status, started.text).toBe(201);
    expect(await socketStatus(started.body.conversation.socketUrl, tokens.access_token)).toBe(403);
    const full = await tokensOf(app);
    expect(await socketStatus(started.body.conversation.socketUrl, full.access_token)).toBe(101);
  });

  it('narrowing an app narrows the grants it gave, at once and on refresh', async () => {
    const narrowing = await registerApp(site, { redirectUris: [REDIRECT] });
    const tokens = await tokensOf(narrowing);
    const company = (name: string) =>
      api('/v2/companies.json', { method: 'POST', key: tokens.access_token, body: { company: { name } } });
    expect((await company('Before Narrowing Ltd')).status).toBe(201);
    const patched = await api(`/v2/oauthapps/${narrowing.id}.json`, {
      method: 'PATCH',
      key: site.users.owner.apiKey,
      body: { oauthapp: { scopes: ['desk:read'] } },
    });
    expect(patched.status, patched.text).toBe(200);
    expectError(await company('After Narrowing Ltd'), 403, undefined, /desk scope/);
    expect((await api('/v2/companies.json', { key: tokens.access_token })).status).toBe(200);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, narrowing);
    expect(refreshed.body.scope).toBe('desk:read');
  });
});

describe('grants', () => {
  it('lists the apps a teammate let in, to them (and to admins), and a revoke stops their tokens at once', async () => {
    const granted = await registerApp(site, { redirectUris: [REDIRECT], name: 'Granted App' });
    const exchanged = await token(exchangeOf(await codeFor({ client: granted })), granted);
    const { access_token: accessToken, refresh_token: refreshToken } = exchanged.body;
    expect((await me(accessToken)).status).toBe(200);

    const mine = await api('/v2/oauthgrants.json', {
      key: site.users.agent.apiKey,
      query: { filter: { app: granted.id } },
    });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.oauthgrants).toHaveLength(1);
    const grant = mine.body.oauthgrants[0];
    expect(grant).toMatchObject({
      appName: 'Granted App',
      app: { id: granted.id, type: 'oauthapps' },
      user: { id: site.users.agent.id, type: 'users' },
      scopes: ['desk'],
    });
    expect(Date.parse(grant.lastUsedAt)).toBeGreaterThan(Date.now() - 120_000);
    // another teammate sees none of it; an admin sees it; another installation cannot reach it
    expect(
      (
        await api('/v2/oauthgrants.json', {
          key: site.users.collaborator.apiKey,
          query: { filter: { app: granted.id } },
        })
      ).body.oauthgrants,
    ).toEqual([]);
    expectError(
      await api(`/v2/oauthgrants/${grant.id}.json`, { method: 'DELETE', key: site.users.collaborator.apiKey }),
      404,
    );
    expect((await api(`/v2/oauthgrants/${grant.id}.json`, { key: site.users.admin.apiKey })).status).toBe(200);
    expectError(await api(`/v2/oauthgrants/${grant.id}.json`, { key: other.users.owner.apiKey }), 404);

    // an app's token revokes no consent, its own included: the teammate does, or the app through POST /oauth/revoke
    expectError(await api(`/v2/oauthgrants/${grant.id}.json`, { method: 'DELETE', key: accessToken }), 403);
    expect(
      (await api(`/v2/oauthgrants/${grant.id}.json`, { method: 'DELETE', key: site.users.agent.apiKey })).status,
    ).toBe(204);
    expectError(await me(accessToken), 401);
    expectOAuthError(
      await token({ grant_type: 'refresh_token', refresh_token: refreshToken }, granted),
      400,
      'invalid_grant',
    );
    expect(
      (await api('/v2/oauthgrants.json', { key: site.users.agent.apiKey, query: { filter: { app: granted.id } } })).body
        .oauthgrants,
    ).toEqual([]);
  });
});

describe('a new client secret', () => {
  it('replaces the old one at once, shown this once; a public app has none to replace', async () => {
    const rotating = await registerApp(site, { redirectUris: [REDIRECT] });
    const exchange = async () => exchangeOf(await codeFor({ client: rotating }));
    expectError(
      await api(`/v2/oauthapps/${rotating.id}/secret.json`, { method: 'POST', key: site.users.agent.apiKey }),
      403,
    );
    expectError(
      await api(`/v2/oauthapps/${rotating.id}/secret.json`, { method: 'POST', key: other.users.owner.apiKey }),
      404,
    );
    const rotated = await api(`/v2/oauthapps/${rotating.id}/secret.json`, {
      method: 'POST',
      key: site.users.admin.apiKey,
    });
    expect(rotated.status, rotated.text).toBe(200);
    const fresh = rotated.body.oauthapp.clientSecret as string;
    expect(fresh).toMatch(/^hds_/);
    expect(fresh).not.toBe(rotating.clientSecret);
    expect(rotated.body.oauthapp.secretPrefix).toBe(fresh.slice(0, 8));
    expectOAuthError(await token(await exchange(), rotating), 401, 'invalid_client');
    expect((await token(await exchange(), { ...rotating, clientSecret: fresh })).status).toBe(200);
    const [event] = await rows<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE record_type = 'oauthapps' AND record_id = $1 AND kind = 'updated'`,
      [rotating.id],
    );
    expect(JSON.stringify(event!.data)).not.toContain(fresh);

    const open = await registerApp(site, { redirectUris: [REDIRECT], clientType: 'public' });
    expectError(
      await api(`/v2/oauthapps/${open.id}/secret.json`, { method: 'POST', key: site.users.owner.apiKey }),
      409,
      'id',
    );
  });
});
