import { defineRoute } from '../../../http/route';
import {
  answerAsPage,
  AUTHORIZATION_EXAMPLE,
  authorizationQuery,
  check,
  HTML_ANSWER,
  renderConsent,
} from './authorize';
import { OAUTH_PATHS } from './issuer';

/** `GET /oauth/authorize`: the consent page of an authorization request (RFC 6749 4.1.1). */
export const oauthAuthorizePageRoute = defineRoute(
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
