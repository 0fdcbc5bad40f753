import { z } from 'zod';
import { OAUTH_SCOPES } from '../../../db/schema';
import { jsonResponse } from '../../../http/responses';
import { defineRoute } from '../../../http/route';
import { issuer, OAUTH_PATHS } from './issuer';

const CLIENT_AUTH = ['client_secret_basic', 'client_secret_post', 'none'];

const metadata = z
  .object({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    revocation_endpoint: z.string(),
    userinfo_endpoint: z.string(),
    scopes_supported: z.array(z.string()),
    response_types_supported: z.array(z.string()),
    response_modes_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    revocation_endpoint_auth_methods_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()),
    authorization_response_iss_parameter_supported: z.boolean(),
    service_documentation: z.string(),
  })
  .meta({ id: 'OAuthServerMetadata', description: 'RFC 8414' });

/** `GET /.well-known/oauth-authorization-server` (RFC 8414): where the app login flow's endpoints are, and what they take. */
export const oauthServerMetadataRoute = defineRoute(
  {
    method: 'get',
    path: OAUTH_PATHS.metadata,
    tag: 'OAuth',
    operationId: 'oauthServerMetadata',
    public: true,
    summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
    description:
      "Where the app login flow's endpoints are and what they take (RFC 8414): the issuer (`PUBLIC_URL` when set, else the origin the request came to), the authorize, token, revocation and userinfo endpoints, the scopes, the grant types, the client authentication methods and S256 as the only PKCE method. Cached for an hour. See docs/oauth.md.",
    responses: { 200: jsonResponse('the metadata', metadata) },
  },
  (c) => {
    const base = issuer(c);
    return c.json(
      {
        issuer: base,
        authorization_endpoint: base + OAUTH_PATHS.authorize,
        token_endpoint: base + OAUTH_PATHS.token,
        revocation_endpoint: base + OAUTH_PATHS.revoke,
        userinfo_endpoint: base + OAUTH_PATHS.userinfo,
        scopes_supported: [...OAUTH_SCOPES],
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_methods_supported: CLIENT_AUTH,
        revocation_endpoint_auth_methods_supported: CLIENT_AUTH,
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
        service_documentation: `${base}/v2/docs`,
      },
      200,
      { 'Cache-Control': 'public, max-age=3600' },
    );
  },
);
