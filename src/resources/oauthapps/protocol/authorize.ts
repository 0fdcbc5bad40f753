import { and, eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { z } from 'zod';
import type { AppEnv } from '../../../app-env';
import { principalOf } from '../../../auth/authenticate';
import type { Principal } from '../../../auth/principal';
import { scopesBeyond } from '../../../auth/scopes';
import { installations, users, type OAuthScope } from '../../../db/schema';
import { ApiError } from '../../../http/errors';
import { PAGE_HEADERS } from '../../../lib/html/page';
import { matchRedirectUri } from '../redirect-uri';
import { consentPage, problemPage } from './authorize-page';
import { findClient, type OAuthClient } from './client-auth';
import { issuer, OAUTH_PATHS } from './issuer';
import { OAuthError, sharedRefusal } from './oauth-error';
import { base64url, validChallenge } from './pkce';
import { requestedScopes } from './scopes';
import { parameter } from './wire';

export const SIGNIN_COOKIE = 'hd_signin';
/**
 * The consent form's token, also a cookie (the double-submit pattern): a form another site makes
 * cannot carry it. One cookie a page (named by the token's start), so two consent pages open side
 * by side each keep theirs.
 */
export const consentCookie = (token: string) => `hd_consent_${token.slice(0, 12)}`;

/** RFC 6749 4.1.1 with RFC 7636's PKCE; unknown parameters are ignored (RFC 6749 3.1). */
export const authorizationRequest = {
  response_type: parameter('`code`'),
  client_id: parameter("the app's client_id"),
  redirect_uri: parameter('one the app registered; may be left out when it registered only one'),
  scope: parameter('space-separated: `desk`, `desk:read`; all the app may ask for when left out'),
  state: parameter('returned untouched with the code'),
  code_challenge: parameter('PKCE: BASE64URL(SHA256(code_verifier)); required of every app'),
  code_challenge_method: parameter('`S256`, required: the only one taken'),
};

export const authorizationQuery = z.object(authorizationRequest);

/** The authorize request of the reference's examples: a reporting app asking to read. */
export const AUTHORIZATION_EXAMPLE = {
  response_type: 'code',
  client_id: 'hdc_8f2b6c1d9e0a4b7c',
  redirect_uri: 'https://dashboard.acme.example/callback',
  scope: 'desk:read',
  state: 'af0ifjsldkj',
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
};

type RequestParams = z.infer<typeof authorizationQuery>;

/** A request the page cannot send back to the app: shown as a page, with its status (`answerAsPage`). */
export class PageProblem extends ApiError {
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
export function backToApp(
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
export class BackToApp extends ApiError {
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
export async function check(c: Context<AppEnv>, params: RequestParams): Promise<Checked> {
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
export async function signedIn(c: Context<AppEnv>, installationId: number): Promise<Principal | undefined> {
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

export async function renderConsent(
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

/** Problems of the page as pages; a refusal that goes back to the app as its redirect. */
export function answerAsPage(error: Error, c: Context<AppEnv>): Response | undefined {
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

export const HTML_ANSWER = { 'text/html': { schema: { type: 'string' } } } as const;
