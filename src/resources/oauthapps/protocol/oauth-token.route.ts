import { z } from 'zod';
import { jsonResponse } from '../../../http/responses';
import { defineRoute } from '../../../http/route';
import { authenticateClient } from './client-auth';
import { exchangeCode, refreshGrant, type IssuedTokens } from './grants';
import { identityOf, oauthIdentity } from './identity';
import { OAUTH_PATHS } from './issuer';
import { ACCESS_TOKEN_SECONDS } from './lifetimes';
import { answerAsOAuth, OAuthError, oauthErrorBody, TOKEN_HEADERS } from './oauth-error';
import { validVerifier } from './pkce';
import { requestedScopes } from './scopes';
import { formOrJson, OAUTH_REFUSALS, parameter, parametersOf } from './wire';

/** RFC 6749 4.1.3 and 6; unknown parameters are ignored (RFC 6749 3.2). */
const tokenRequest = z
  .object({
    grant_type: parameter('`authorization_code` or `refresh_token`'),
    code: parameter('the code the authorize page gave (authorization_code)'),
    redirect_uri: parameter('the redirect URI the authorize request sent (authorization_code)'),
    code_verifier: parameter(
      "PKCE's verifier the code_challenge was made from (authorization_code, required): 43 to 128 of A-Z a-z 0-9 - . _ ~",
    ),
    refresh_token: parameter('a refresh token (refresh_token); it works once'),
    scope: parameter('space-separated, within the grant: narrows it (refresh_token)'),
    client_id: parameter("the app's client_id (required unless sent as HTTP Basic)"),
    client_secret: parameter("a confidential app's secret (client_secret_post), unless sent as HTTP Basic"),
  })
  .meta({ id: 'OAuthTokenRequest' });

const tokenAnswer = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().meta({ description: 'seconds the access token lives' }),
    refresh_token: z
      .string()
      .meta({ description: 'works once: it gives the next tokens and stops; used again, it revokes the grant' }),
    scope: z.string(),
    ...oauthIdentity,
  })
  .meta({ id: 'OAuthToken' });

function required(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}

/** PKCE's verifier (RFC 7636 4.1), required of every code exchange since every code has a challenge. */
function codeVerifier(value: string | undefined): string {
  const verifier = required(value, 'code_verifier');
  if (!validVerifier(verifier))
    throw new OAuthError(
      'invalid_request',
      'code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_" and "~" (RFC 7636 4.1)',
    );
  return verifier;
}

/**
 * `POST /oauth/token`: a code, or a refresh token, for an access token and the next refresh token
 * (form-encoded or JSON). The platform's answer (`access_token`, `token_type`, `installation`,
 * `user`) with `expires_in`, `refresh_token` and `scope`; refusals as RFC 6749 5.2 words them.
 */
export const oauthTokenRoute = defineRoute(
  {
    method: 'post',
    path: OAUTH_PATHS.token,
    tag: 'OAuth',
    operationId: 'oauthToken',
    public: true,
    summary: 'OAuth 2.0 token endpoint (RFC 6749): exchange a code or a refresh token',
    description:
      'Exchanges a code (with `redirect_uri` when the authorize request sent one, and the PKCE `code_verifier`, always) or a refresh token (optionally narrowing `scope`) for an access token good for an hour and the next refresh token, with the installation and the teammate; form-encoded or JSON, never cached. The app authenticates with its secret in HTTP Basic or the body (not both), a public app with `client_id` alone: otherwise a 401 `invalid_client`. A code or refresh token unknown, expired, already used or another app\'s is a 400 `invalid_grant`; a refresh token or a code used a second time revokes its whole grant, every token of it. Refusals read as RFC 6749 5.2\'s `{"error", "error_description"}`. See docs/oauth.md.',
    security: [{ clientSecretBasic: [] }, {}],
    request: { body: formOrJson(tokenRequest) },
    example: {
      body: {
        grant_type: 'authorization_code',
        code: '<the code the redirect brought>',
        redirect_uri: 'https://dashboard.acme.example/callback',
        code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      },
    },
    responses: {
      200: jsonResponse('the tokens', tokenAnswer),
      400: jsonResponse('invalid_request, invalid_grant, unsupported_grant_type or invalid_scope', oauthErrorBody),
      ...OAUTH_REFUSALS,
    },
    answerError: answerAsOAuth,
  },
  async (c) => {
    const body = parametersOf<z.infer<typeof tokenRequest>>(c);
    const grantType = required(body.grant_type, 'grant_type');
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
      throw new OAuthError(
        'unsupported_grant_type',
        `grant_type ${grantType} is not supported: use authorization_code or refresh_token`,
      );
    }
    const client = await authenticateClient(c, body);
    let tokens: IssuedTokens;
    if (grantType === 'authorization_code') {
      tokens = await exchangeCode(c.var.db, client, {
        code: required(body.code, 'code'),
        redirectUri: body.redirect_uri,
        codeVerifier: codeVerifier(body.code_verifier),
      });
    } else {
      tokens = await refreshGrant(c.var.db, client, {
        refreshToken: required(body.refresh_token, 'refresh_token'),
        scopes: requestedScopes(body.scope),
      });
    }
    const identity = await identityOf(c, tokens.installationId, tokens.userId, tokens.owner);
    return c.json(
      {
        access_token: tokens.accessToken,
        token_type: 'Bearer' as const,
        expires_in: ACCESS_TOKEN_SECONDS,
        refresh_token: tokens.refreshToken,
        scope: tokens.scopes.join(' '),
        ...identity,
      },
      200,
      TOKEN_HEADERS,
    );
  },
);
