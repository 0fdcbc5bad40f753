import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { z } from 'zod';
import type { AppEnv } from '../../../app-env';
import { principalOf } from '../../../auth/authenticate';
import type { Principal } from '../../../auth/principal';
import { hashSecret, newSecret } from '../../../auth/secrets';
import { credentials, installations, users, type OAuthScope } from '../../../db/schema';
import { ApiError } from '../../../http/errors';
import { defineRoute } from '../../../http/route';
import { addressGuard } from '../../../ratelimit/address-guard';
import { matchRedirectUri } from '../redirect-uri';
import { PAGE_HEADERS } from '../../../lib/html/page';
import { consentPage, problemPage } from './authorize-page';
import { findClient, type OAuthClient } from './client-auth';
import { issueCode } from './grants';
import { issuer, OAUTH_PATHS } from './issuer';
import { SIGNIN_SECONDS } from './lifetimes';
import { base64url, validChallenge } from './pkce';
import { scopesBeyond } from '../../../auth/scopes';
import { requestedScopes } from './scopes';
import { OAuthError, sharedRefusal } from './oauth-error';
import { parameter } from './wire';

const SIGNIN_COOKIE = 'hd_signin';
/**
 * The consent form's token, also a cookie (the double-submit pattern): a form another site makes
 * cannot carry it. One cookie a page (named by the token's start), so two consent pages open side
 * by side each keep theirs.
 */
const consentCookie = (token: string) => `hd_consent_${token.slice(0, 12)}`;

/** RFC 6749 4.1.1 with RFC 7636's PKCE; unknown parameters are ignored (RFC 6749 3.1). */
const authorizationRequest = {
  response_type: parameter('`code`'),
  client_id: parameter("the app's client_id"),
  redirect_uri: parameter('one the app registered; may be left out when it registered only one'),
  scope: parameter('space-separated: `desk`, `desk:read`; all the app may ask for when left out'),
  state: parameter('returned untouched with the code'),
  code_challenge: parameter('PKCE: BASE64URL(SHA256(code_verifier)); required of every app'),
  code_challenge_method: parameter('`S256`, required: the only one taken'),
};

const authorizationQuery = z.object(authorizationRequest);

/** The authorize request of the reference's examples: a reporting app asking to read. */
const AUTHORIZATION_EXAMPLE = {
  response_type: 'code',
  client_id: 'hdc_8f2b6c1d9e0a4b7c',
  redirect_uri: 'https://dashboard.acme.example/callback',
  scope: 'desk:read',
  state: 'af0ifjsldkj',
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
};
const consentForm = z
  .object({
    ...authorizationRequest,
    api_key: parameter("the teammate's API key; may be left out when the sign-in cookie names them"),
    consent_token: parameter('the token the page put in its form (and in its `hd_consent_…` cookie)'),
    decision: parameter('`allow` or `deny`'),
  })
  .meta({ id: 'OAuthConsent' });

type RequestParams = z.infer<typeof authorizationQuery>;

/** A request the page cannot send back to the app: shown as a page, with its status (`answerAsPage`). */
class PageProblem extends ApiError {
  constructor(
    status: 400 | 403,
    readonly problem: string,
  ) {
    super(status, [{ code: status === 400 ? 'invalid' : 'forbidden', detail: problem }]);
  }
}

/** An authorization request, checked: where the answer goes, and what it grants. */
interface Checked {
  client: OAuthClient;
  redirectUri: string;
  redirectUriSent: boolean;
  scopes: OAuthScope[];
  state: string | undefined;
  codeChallenge: string;
}

/** The redirect back to the app, with `iss` (RFC 9207) and `state` beside `params`. */
function backToApp(
  c: Context<AppEnv>,
  redirectUri: string,
  params: Record<string, string>,
  state: string | undefined,
): Response {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (state !== undefined) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer(c));
  // through the context: a sign-in cookie set on it goes with the redirect
  return c.body(null, 303, { Location: url.href, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
}

/** A refusal once the redirect URI is known: sent back to the app (RFC 6749 4.1.2.1, `answerAsPage`). */
class BackToApp extends ApiError {
  constructor(
    readonly redirectUri: string,
    readonly error: string,
    readonly description: string,
    readonly state: string | undefined,
  ) {
    super(400, [{ code: 'invalid', detail: `${error}: ${description}` }]);
  }
}

/**
 * The app and where its answers go: a problem here is shown as a page, never redirected (RFC 6749
 * 4.1.2.1), so no link can make this page send a browser to an address the app did not register.
 */
async function appAndRedirect(
  c: Context<AppEnv>,
  params: RequestParams,
): Promise<{ client: OAuthClient; redirectUri: string }> {
  if (!params.client_id) throw new PageProblem(400, 'The link names no app (client_id is missing).');
  const found = await findClient(c, params.client_id);
  if (!found) throw new PageProblem(400, 'No app has this client_id: it may have been deleted.');
  const { client } = found;
  let redirectUri: string | undefined;
  if (params.redirect_uri !== undefined) redirectUri = matchRedirectUri(client.redirectUris, params.redirect_uri);
  else if (client.redirectUris.length === 1) redirectUri = client.redirectUris[0];
  if (!redirectUri) {
    throw new PageProblem(
      400,
      params.redirect_uri === undefined
        ? 'The link names no redirect_uri, and the app registered several.'
        : `The app did not register the redirect_uri ${params.redirect_uri}.`,
    );
  }
  return { client, redirectUri };
}

/**
 * The app and redirect URI first (`appAndRedirect`), then everything else, whose problems go back
 * to the app: response type, scopes, PKCE (S256, required of every app, confidential ones too, as
 * OAuth 2.1 has it).
 */
async function check(c: Context<AppEnv>, params: RequestParams): Promise<Checked> {
  const { client, redirectUri } = await appAndRedirect(c, params);
  const back = (error: string, description: string) => new BackToApp(redirectUri, error, description, params.state);
  if (params.response_type !== 'code') {
    throw params.response_type === undefined
      ? back('invalid_request', 'response_type is required')
      : back('unsupported_response_type', 'response_type must be code');
  }
  let scopes: OAuthScope[];
  try {
    scopes = requestedScopes(params.scope) ?? client.scopes;
  } catch (error) {
    if (error instanceof OAuthError) throw back(error.error, error.description);
    throw error;
  }
  const beyond = scopesBeyond(client.scopes, scopes);
  if (beyond.length) throw back('invalid_scope', `the app may not ask for ${beyond.join(' ')}`);
  if (params.code_challenge === undefined)
    throw back('invalid_request', 'code_challenge is required: every app uses PKCE with S256 (RFC 7636)');
  if (params.code_challenge_method !== 'S256')
    throw back('invalid_request', 'code_challenge_method must be S256 (plain is not taken)');
  if (!validChallenge(params.code_challenge))
    throw back('invalid_request', 'code_challenge must be 43 base64url characters (S256)');
  return {
    client,
    redirectUri,
    redirectUriSent: params.redirect_uri !== undefined,
    scopes,
    state: params.state,
    codeChallenge: params.code_challenge,
  };
}

/** The teammate the sign-in cookie names, if it is of the app's helpdesk. */
async function signedIn(c: Context<AppEnv>, installationId: number): Promise<Principal | undefined> {
  const cookie = getCookie(c, SIGNIN_COOKIE);
  if (!cookie) return undefined;
  const principal = await principalOf(c.var.db, cookie, undefined, 'signin');
  return principal?.installationId === installationId ? principal : undefined;
}

async function teammateName(c: Context<AppEnv>, who: Principal): Promise<string> {
  const [user] = await c.var.db.http
    .select({ firstName: users.firstName, lastName: users.lastName, email: users.email })
    .from(users)
    .where(and(eq(users.id, who.userId), eq(users.installationId, who.installationId)));
  return user ? `${`${user.firstName} ${user.lastName}`.trim()} (${user.email})` : `teammate ${who.userId}`;
}

async function renderConsent(
  c: Context<AppEnv>,
  request: Checked,
  params: RequestParams,
  status: 200 | 401,
  problem?: string,
): Promise<Response> {
  const who = await signedIn(c, request.client.installationId);
  const helpdesk = await helpdeskName(c, request.client.installationId);
  const html = consentPage({
    appName: request.client.name,
    helpdesk,
    scopes: request.scopes,
    redirectHost: redirectHost(request.redirectUri),
    signedInAs: who ? await teammateName(c, who) : undefined,
    hidden: { ...params, consent_token: newConsentToken(c) },
    ...(problem ? { problem } : {}),
  });
  // through the context: the consent cookie set on it goes with the page
  return c.body(html, status, PAGE_HEADERS);
}

/** A fresh form token, set as its `hd_consent_…` cookie (an hour; SameSite=Strict) and put in the form. */
function newConsentToken(c: Context<AppEnv>): string {
  const token = base64url(crypto.getRandomValues(new Uint8Array(24)));
  setCookie(c, consentCookie(token), token, {
    path: OAUTH_PATHS.authorize,
    httpOnly: true,
    sameSite: 'Strict',
    maxAge: 60 * 60,
    secure: new URL(c.req.url).protocol === 'https:',
  });
  return token;
}

/**
 * The form was posted from its own page: the token in the form is the one in the cookie (a page
 * elsewhere can neither read nor set it), and the browser, where it says, calls it same-origin.
 * Refuses login CSRF too (a form that would sign the teammate in with someone else's key).
 */
function requireOwnForm(c: Context<AppEnv>, token: string | undefined): void {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    throw new PageProblem(403, 'The form was sent from another site.');
  const cookie = token ? getCookie(c, consentCookie(token)) : undefined;
  if (!token || !cookie || token !== cookie)
    throw new PageProblem(
      403,
      'This form has expired or was not sent from its page: open the link from the app again.',
    );
  deleteCookie(c, consentCookie(token), { path: OAUTH_PATHS.authorize });
}

async function helpdeskName(c: Context<AppEnv>, installationId: number): Promise<string> {
  const [row] = await c.var.db.http
    .select({ name: installations.name })
    .from(installations)
    .where(eq(installations.id, installationId));
  return row?.name ?? 'your helpdesk';
}

function redirectHost(uri: string): string {
  const url = new URL(uri);
  return url.host || url.protocol;
}

/**
 * The sign-in cookie: a credential of its own (`signin`), stored hashed, good for a week and for
 * this page only (it authenticates no API request), while the API key it came from is not
 * revoked; HttpOnly and SameSite=Lax (a form on another site cannot post with it). Its statement
 * goes in the consent's batch (`issueCode`): `set` sets the cookie when it wrote a row.
 */
async function signinStatement(
  c: Context<AppEnv>,
  who: Principal,
  apiKey: string,
): Promise<{ statement: SQL; set: (rows: unknown[]) => void }> {
  const secret = await newSecret('hdi_');
  // tied to the key it came from (revoking that key ends this sign-in too)
  const statement = sql`
    INSERT INTO ${credentials} (installation_id, user_id, kind, name, prefix, secret_hash, expires_at, created_by, updated_by, parent_id)
    SELECT ${who.installationId}::int, ${who.userId}::int, 'signin', 'authorize page sign-in', ${secret.prefix}, ${secret.hash},
           ${new Date(Date.now() + SIGNIN_SECONDS * 1000).toISOString()}::timestamptz, ${who.userId}::int, ${who.userId}::int, k.id
      FROM ${credentials} k WHERE k.secret_hash = ${await hashSecret(apiKey)}
    RETURNING id`;
  const set = (rows: unknown[]) => {
    if (rows.length === 0) return; // no key to tie it to: no sign-in (the teammate enters a key next time)
    setCookie(c, SIGNIN_COOKIE, secret.secret, {
      path: OAUTH_PATHS.authorize,
      httpOnly: true,
      sameSite: 'Lax',
      maxAge: SIGNIN_SECONDS,
      secure: new URL(c.req.url).protocol === 'https:',
    });
  };
  return { statement, set };
}

/** Problems of the page as pages; a refusal that goes back to the app as its redirect. */
function answerAsPage(error: Error, c: Context<AppEnv>): Response | undefined {
  if (error instanceof BackToApp)
    return backToApp(c, error.redirectUri, { error: error.error, error_description: error.description }, error.state);
  if (error instanceof PageProblem)
    return new Response(problemPage(error.problem), { status: error.status, headers: PAGE_HEADERS });
  const refused = sharedRefusal(error);
  return (
    refused &&
    new Response(problemPage(`The request is malformed: ${refused.detail}`), { status: 400, headers: PAGE_HEADERS })
  );
}

const HTML_ANSWER = { 'text/html': { schema: { type: 'string' } } } as const;

/** `GET /oauth/authorize`: the consent page of an authorization request (RFC 6749 4.1.1). */
export const authorizePageRoute = defineRoute(
  {
    method: 'get',
    path: OAUTH_PATHS.authorize,
    tag: 'OAuth',
    operationId: 'oauthAuthorizePage',
    public: true,
    summary: 'OAuth 2.0 authorize page: a teammate signs in and allows or denies the app',
    description:
      "The consent page an app sends a teammate's browser to (RFC 6749 4.1.1): it names the app, the helpdesk and what the scopes allow, and asks for an API key (unless the sign-in cookie is there) and Allow or Deny. The app and redirect URI are checked first: no or an unknown `client_id`, or a `redirect_uri` the app did not register exactly (or none when it registered several), is a 400 page, never a redirect. After that, problems go back to the app as a 303 with `error`, `state` and `iss`: a `response_type` other than `code`, a scope the app may not ask for, or a missing or non-S256 PKCE challenge (PKCE is required of every app). The page is never cached or framed. See docs/oauth.md.",
    request: { query: authorizationQuery },
    // RFC 7636's example challenge, of the verifier `dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk`
    example: { query: AUTHORIZATION_EXAMPLE },
    responses: {
      200: { description: 'the consent page', content: HTML_ANSWER },
      303: { description: "back to the app's redirect URI with `error` (and `state`, `iss`): the request is refused" },
      400: {
        description:
          'a page saying why, never a redirect: no client_id or an unknown one, a redirect_uri the app did not register exactly, or none when it registered several',
        content: HTML_ANSWER,
      },
    },
    answerError: answerAsPage,
  },
  async (c) => {
    const params = c.req.valid('query');
    const request = await check(c, params);
    return renderConsent(c, request, params, 200) as never;
  },
);

/**
 * `POST /oauth/authorize`: the consent form. Deny sends the app `access_denied`; Allow, by the
 * teammate of the API key entered (who is then signed in here for a week) or of the sign-in
 * cookie, sends it a code. A key of another helpdesk, or an OAuth token, signs nobody in.
 */
export const authorizeDecisionRoute = defineRoute(
  {
    method: 'post',
    path: OAUTH_PATHS.authorize,
    tag: 'OAuth',
    operationId: 'oauthAuthorizeDecision',
    public: true,
    summary: "OAuth 2.0 authorize page's form: allow (with an API key or the sign-in cookie) or deny",
    description:
      "The consent page's form: Deny sends the browser back to the app with `access_denied`; Allow, by the teammate of the API key entered (who is then signed in on this page for a week by a cookie) or of the sign-in cookie, records the teammate's grant and sends the browser back with a code good once for 10 minutes, as a 303 with `state` and `iss`. The request is checked again as on the page (a 400 page for an unknown app or an unregistered redirect URI); a form not posted from its own page (no matching consent token, or another site) is a 403 page, and an API key not of this helpdesk, a wrong one or an OAuth token shows the page again with 401, counting against the client address's failed-authentication limit. See docs/oauth.md.",
    security: [{}],
    request: { body: { required: true, content: { 'application/x-www-form-urlencoded': { schema: consentForm } } } },
    example: {
      body: {
        ...AUTHORIZATION_EXAMPLE,
        api_key: "<the teammate's API key>",
        consent_token: "<the page's consent_token>",
        decision: 'allow',
      },
    },
    responses: {
      303: { description: "back to the app's redirect URI with `code` (or `error`), `state` and `iss`" },
      400: {
        description:
          'a page saying why, never a redirect: no client_id or an unknown one, a redirect_uri the app did not register exactly (or none when it registered several), a form without allow or deny',
        content: HTML_ANSWER,
      },
      401: { description: 'the consent page again: the API key is not valid here', content: HTML_ANSWER },
      403: {
        description: 'a page: the form was not posted from its page (no consent token, or another site)',
        content: HTML_ANSWER,
      },
    },
    answerError: answerAsPage,
  },
  async (c) => {
    const { api_key: apiKey, decision, consent_token: token, ...params } = c.req.valid('form');
    const request = await check(c, params);
    requireOwnForm(c, token);
    if (decision === 'deny')
      throw new BackToApp(request.redirectUri, 'access_denied', 'the teammate denied the app', request.state);
    if (decision !== 'allow') throw new PageProblem(400, 'The form must say allow or deny.');
    let who: Principal | undefined;
    let signin: Awaited<ReturnType<typeof signinStatement>> | undefined;
    if (apiKey) {
      who = await principalOf(c.var.db, apiKey, addressGuard(c));
      if (!who || who.oauth || who.installationId !== request.client.installationId) {
        return renderConsent(
          c,
          request,
          params,
          401,
          who?.oauth ? 'Sign in with an API key, not an OAuth token.' : 'That API key is not valid for this helpdesk.',
        ) as never;
      }
      signin = await signinStatement(c, who, apiKey);
    } else {
      who = await signedIn(c, request.client.installationId);
      if (!who) return renderConsent(c, request, params, 401, 'Enter your API key to sign in.') as never;
    }
    const consent = {
      client: request.client,
      userId: who.userId,
      scopes: request.scopes,
      redirectUri: request.redirectUri,
      redirectUriSent: request.redirectUriSent,
      codeChallenge: request.codeChallenge,
    };
    const { code, alongside } = await issueCode(c.var.db, consent, signin ? [signin.statement] : []);
    signin?.set(alongside[0]!);
    return backToApp(c, request.redirectUri, { code }, request.state) as never;
  },
);
