import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { EVERYONE } from '../../auth/access';
import { forgetCredentials } from '../../auth/authenticate';
import { OAUTH_SCOPES, credentials, oauthApps, oauthGrants } from '../../db/schema';
import { AUDIT_SET, defineResource, isoTime, refProperty, timeSchema } from '../../engine';
import { includedUsers } from '../users/user-shape';
import { requireOwnCredentialOf } from './oauthapps.resource';

/**
 * The apps a teammate has let in (`/v2/oauthgrants.json`): each teammate sees and revokes their
 * own, owners and admins everyone's. Revoking (DELETE) stops every token of the grant at once
 * (OAuth tokens are looked up on every request: `src/auth/authenticate.ts`).
 */
export const oauthGrantsResource = defineResource({
  type: 'oauthgrants',
  singular: 'oauthgrant',
  title: { one: 'OAuthGrant', many: 'OAuthGrants', group: 'OAuth' },
  table: oauthGrants,
  fields: {
    user: {
      column: oauthGrants.userId,
      schema: z.unknown(),
      readOnly: true,
      output: refProperty(oauthGrants.userId, 'users', false),
    },
    app: {
      column: oauthGrants.appId,
      schema: z.unknown(),
      readOnly: true,
      output: refProperty(oauthGrants.appId, 'oauthapps', false),
    },
    scopes: {
      column: oauthGrants.scopes,
      schema: z.array(z.enum(OAUTH_SCOPES)).meta({ description: 'what the teammate allowed' }),
      readOnly: true,
    },
  },
  computed: {
    appName: {
      type: 'string',
      schema: z.string().meta({ description: "the app's name" }),
      expr: sql`(SELECT ${oauthApps.name} FROM ${oauthApps} WHERE ${oauthApps.id} = ${oauthGrants.appId})`,
    },
    lastUsedAt: {
      type: 'datetime',
      schema: timeSchema
        .nullable()
        .meta({ description: 'when one of its access tokens last called, to about a minute; null when none has' }),
      expr: isoTime(
        sql`(SELECT max(${credentials.lastUsedAt}) FROM ${credentials} WHERE ${credentials.grantId} = ${oauthGrants.id})`,
      ),
    },
  },
  filter: [...AUDIT_SET, 'user', 'app', 'appName'],
  relations: { users: includedUsers((t) => [(t as typeof oauthGrants).userId]) },
  access: { read: EVERYONE, write: EVERYONE },
  operations: ['list', 'get', 'delete'],
  scope: (who) =>
    who.kind === 'teammate' && (who.role === 'owner' || who.role === 'admin')
      ? undefined
      : eq(oauthGrants.userId, who.userId ?? -1),
  // revoking consents is the teammate's own act, not an app's: an OAuth token revokes only itself (POST /oauth/revoke)
  beforeDelete: ({ who }) => requireOwnCredentialOf(who),
  // the rule needs no database: a revocation is one batch
  planned: {
    beforeDelete: (who) => {
      requireOwnCredentialOf(who);
      return [];
    },
  },
  afterCommit(id) {
    forgetCredentials({ grantId: id });
  },
});
