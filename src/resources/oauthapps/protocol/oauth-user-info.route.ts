import { and, eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../../app-env';
import { EVERYONE } from '../../../auth/access';
import { OAUTH_SCOPES, oauthApps } from '../../../db/schema';
import { jsonResponse } from '../../../http/responses';
import { defineRoute } from '../../../http/route';
import { identityOf, oauthIdentity } from './identity';
import { OAUTH_PATHS } from './issuer';

const userInfo = z
  .object({
    sub: z.string().meta({ description: "the teammate's id, as a string (OpenID Connect's subject)" }),
    scopes: z
      .array(z.enum(OAUTH_SCOPES))
      .meta({ description: 'what the credential may do; an API key may do all its teammate may (`desk`)' }),
    client_id: z.string().nullable().meta({ description: 'the app the token was given to; null for an API key' }),
    ...oauthIdentity,
  })
  .meta({ id: 'OAuthUserInfo' });

async function clientIdOf(c: Context<AppEnv>, appId: number): Promise<string | null> {
  const [app] = await c.var.db.http
    .select({ clientId: oauthApps.clientId })
    .from(oauthApps)
    .where(and(eq(oauthApps.id, appId), eq(oauthApps.installationId, c.var.principal.installationId)));
  return app?.clientId ?? null;
}

/** `GET /oauth/userinfo`: who owns the credential (an OAuth access token, or an API key), in which helpdesk, and its scopes. */
export const oauthUserInfoRoute = defineRoute(
  {
    method: 'get',
    path: OAUTH_PATHS.userinfo,
    tag: 'OAuth',
    operationId: 'oauthUserInfo',
    roles: EVERYONE,
    summary: 'Who owns the credential, and what it may do',
    description:
      "Who owns the credential the request carries, an OAuth access token or an API key: `sub` (the teammate's id as a string), its `scopes` (an API key's are `desk`), the `client_id` of the app a token was given to (null for an API key), and the installation and teammate as the token endpoint names them. Never cached. See docs/oauth.md.",
    responses: { 200: jsonResponse('the owner and scopes', userInfo) },
  },
  async (c) => {
    const who = c.var.principal;
    const identity = await identityOf(c, who.installationId, who.userId);
    return c.json(
      {
        sub: String(who.userId),
        scopes: [...(who.oauth?.scopes ?? ['desk' as const])],
        client_id: who.oauth ? await clientIdOf(c, who.oauth.appId) : null,
        ...identity,
      },
      200,
      { 'Cache-Control': 'no-store' },
    );
  },
);
