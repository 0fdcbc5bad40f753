import { defineModule } from '../../modules/module';
import { createOAuthAppRoute } from './create-oauth-app.route';
import { oauthAppsResource } from './oauthapps.resource';
import { oauthGrantsResource } from './oauthgrants.resource';
import { oauthAuthorizeDecisionRoute } from './protocol/oauth-authorize-decision.route';
import { oauthAuthorizePageRoute } from './protocol/oauth-authorize-page.route';
import { oauthRevokeRoute } from './protocol/oauth-revoke.route';
import { oauthServerMetadataRoute } from './protocol/oauth-server-metadata.route';
import { oauthTokenRoute } from './protocol/oauth-token.route';
import { oauthUserInfoRoute } from './protocol/oauth-user-info.route';
import { sweepOAuth } from './protocol/sweep';
import { rotateOAuthAppSecretRoute } from './rotate-oauth-app-secret.route';

/**
 * OAuth 2.0 for apps: `/v2/oauthapps...` (registration: list, get, create with the secret shown
 * once, PATCH/PUT, delete, a new secret), `/v2/oauthgrants...` (the apps teammates let in: list, get, revoke),
 * and the app login flow under `/oauth/` (authorize page and form,
 * token, revocation, userinfo) with its metadata at `/.well-known/oauth-authorization-server`;
 * the cron clears spent codes and refresh tokens.
 */
export const oauthAppsModule = defineModule({
  name: 'oauthapps',
  resources: [oauthAppsResource, oauthGrantsResource],
  routes: [
    createOAuthAppRoute,
    rotateOAuthAppSecretRoute,
    oauthAuthorizePageRoute,
    oauthAuthorizeDecisionRoute,
    oauthTokenRoute,
    oauthRevokeRoute,
    oauthUserInfoRoute,
    oauthServerMetadataRoute,
  ],
  cron: { sweep: sweepOAuth },
});
