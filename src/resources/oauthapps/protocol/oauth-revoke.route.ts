import { z } from 'zod';
import { jsonResponse } from '../../../http/responses';
import { defineRoute } from '../../../http/route';
import { authenticateClient } from './client-auth';
import { revokeToken } from './grants';
import { OAUTH_PATHS } from './issuer';
import { formOrJson, OAUTH_REFUSALS, parameter, parametersOf } from './wire';
import { answerAsOAuth, OAuthError, oauthErrorBody, TOKEN_HEADERS } from './oauth-error';

/** RFC 7009 2.1; unknown parameters are ignored. */
const revocationRequest = z
  .object({
    token: parameter('the access token or refresh token to revoke'),
    token_type_hint: parameter('`access_token` or `refresh_token`: a hint only, either is found'),
    client_id: parameter("the app's client_id (required unless sent as HTTP Basic)"),
    client_secret: parameter("a confidential app's secret, unless sent as HTTP Basic"),
  })
  .meta({ id: 'OAuthRevocationRequest' });

/**
 * `POST /oauth/revoke` (RFC 7009): a refresh token ends its whole grant, an access token itself.
 * 200 for a token that is unknown, spent or another app's too, as the RFC asks.
 */
export const oauthRevokeRoute = defineRoute(
  {
    method: 'post',
    path: OAUTH_PATHS.revoke,
    tag: 'OAuth',
    operationId: 'oauthRevoke',
    public: true,
    summary: 'OAuth 2.0 token revocation (RFC 7009)',
    description:
      "Revokes a token of the calling app (RFC 7009): a refresh token ends its whole grant, every token of it, and an access token itself, at once. A token that is unknown, already spent or another app's changes nothing and is answered 200 alike. The app authenticates as at the token endpoint (a 401 `invalid_client` otherwise); no `token` is a 400 `invalid_request`, in RFC 6749 5.2's words. See docs/oauth.md.",
    security: [{ clientSecretBasic: [] }, {}],
    request: { body: formOrJson(revocationRequest) },
    example: { body: { token: '<a refresh token of the app>' } },
    responses: {
      200: { description: 'revoked, or nothing to revoke: the answer is the same' },
      400: jsonResponse('invalid_request', oauthErrorBody),
      ...OAUTH_REFUSALS,
    },
    answerError: answerAsOAuth,
  },
  async (c) => {
    const body = parametersOf<z.infer<typeof revocationRequest>>(c);
    const client = await authenticateClient(c, body);
    if (!body.token) throw new OAuthError('invalid_request', 'token is required');
    await revokeToken(c.var.db, client, body.token);
    return c.body(null, 200, TOKEN_HEADERS);
  },
);
