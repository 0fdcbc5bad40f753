import { defineModule } from '../../modules/module';
import { createOAuthAppRoute } from './create-oauth-app';
import { oauthAppsResource } from './oauthapps.resource';
import { oauthGrantsResource } from './oauthgrants.resource';
import { rotateSecretRoute } from './rotate-secret';
import { authorizeDecisionRoute, authorizePageRoute } from './protocol/authorize';
import { metadataRoute } from './protocol/metadata';
import { revokeRoute } from './protocol/revoke';
import { sweepOAuth } from './protocol/sweep';
import { tokenRoute } from './protocol/token';
import { userInfoRoute } from './protocol/userinfo';

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
    rotateSecretRoute,
    authorizePageRoute,
    authorizeDecisionRoute,
    tokenRoute,
    revokeRoute,
    userInfoRoute,
    metadataRoute,
  ],
  cron: { sweep: sweepOAuth },
});
