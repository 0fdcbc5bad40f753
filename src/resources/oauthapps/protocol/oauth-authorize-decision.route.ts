import { sql, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { z } from 'zod';
import type { AppEnv } from '../../../app-env';
import { principalOf } from '../../../auth/authenticate';
import type { Principal } from '../../../auth/principal';
import { hashSecret, newSecret } from '../../../auth/secrets';
import { credentials } from '../../../db/schema';
import { defineRoute } from '../../../http/route';
import { addressGuard } from '../../../ratelimit/address-guard';
import {
  answerAsPage,
  AUTHORIZATION_EXAMPLE,
  authorizationRequest,
  BackToApp,
  backToApp,
  check,
  consentCookie,
  HTML_ANSWER,
  PageProblem,
  renderConsent,
  signedIn,
  SIGNIN_COOKIE,
} from './authorize';
import { issueCode } from './grants';
import { OAUTH_PATHS } from './issuer';
import { SIGNIN_SECONDS } from './lifetimes';
import { parameter } from './wire';

const consentForm = z
  .object({
    ...authorizationRequest,
    api_key: parameter("the teammate's API key; may be left out when the sign-in cookie names them"),
    consent_token: parameter('the token the page put in its form (and in its `hd_consent_…` cookie)'),
    decision: parameter('`allow` or `deny`'),
  })
  .meta({ id: 'OAuthConsent' });

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

/**
 * `POST /oauth/authorize`: the consent form. Deny sends the app `access_denied`; Allow, by the
 * teammate of the API key entered (who is then signed in here for a week) or of the sign-in
 * cookie, sends it a code. A key of another helpdesk, or an OAuth token, signs nobody in.
 */
export const oauthAuthorizeDecisionRoute = defineRoute(
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
