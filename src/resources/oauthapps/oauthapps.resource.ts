import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS, requireOwnCredential } from '../../auth/access';
import type { Actor } from '../../auth/principal';
import { forgetCredentials } from '../../auth/authenticate';
import { OAUTH_CLIENT_TYPES, OAUTH_SCOPES, oauthApps, oauthGrants } from '../../db/schema';
import { AUDIT_SET, defineResource, deleteRecords, type WriteContext } from '../../engine';
import { deleteStatement } from '../../engine';
import { includedUsers } from '../users/user-shape';
import { redirectUris } from './redirect-uri';

export const appName = z.string().trim().min(1).max(100).meta({ description: 'what the authorize page calls the app' });

export const appScopes = z
  .array(z.enum(OAUTH_SCOPES))
  .min(1)
  .transform((list) => [...new Set(list)])
  .meta({
    description:
      'the scopes it may ask for: `desk` (all its teammate may do) and `desk:read` (reads only); default `["desk"]`',
  });

/** Apps and grants are credentials: an OAuth token may not make, change or revoke them. */
export function requireOwnCredentialOf(who: Actor): void {
  if (who.kind === 'teammate') requireOwnCredential(who);
}

/** The app's live grants, which end with it. */
const activeGrantsOf = (who: Actor, id: number) =>
  and(eq(oauthGrants.appId, id), eq(oauthGrants.installationId, who.installationId), eq(oauthGrants.state, 'active'))!;

const byOwnCredential = ({ who }: WriteContext): void => requireOwnCredentialOf(who);

/**
 * OAuth 2.0 apps (`/v2/oauthapps.json`): registered by an owner or admin, who may rename one,
 * change its redirect URIs and scopes, or delete it, which stops every token it was given.
 * The create (`create-oauth-app.route.ts`) shows the client secret once; only its digest is stored.
 */
export const oauthAppsResource = defineResource({
  type: 'oauthapps',
  singular: 'oauthapp',
  title: { one: 'OAuthApp', many: 'OAuthApps', group: 'OAuth' },
  table: oauthApps,
  fields: {
    name: { column: oauthApps.name, schema: appName, required: true },
    redirectUris: { column: oauthApps.redirectUris, schema: redirectUris, required: true },
    scopes: { column: oauthApps.scopes, schema: appScopes },
    clientId: {
      column: oauthApps.clientId,
      schema: z.string().meta({ description: "the app's `client_id`" }),
      readOnly: true,
    },
    clientType: {
      column: oauthApps.clientType,
      schema: z.enum(OAUTH_CLIENT_TYPES).meta({
        description:
          '`confidential` (it has a client secret) or `public` (none; PKCE, required of every app, is its only proof)',
      }),
      readOnly: true,
    },
    secretPrefix: {
      column: oauthApps.secretPrefix,
      schema: z
        .string()
        .nullable()
        .meta({ description: "the client secret's first characters, to recognise it; null for a public app" }),
      readOnly: true,
    },
  },
  filter: [...AUDIT_SET, 'name', 'clientId', 'clientType'],
  relations: { users: includedUsers() },
  access: { read: ADMINS, write: ADMINS },
  examples: {
    update: { name: 'Reporting dashboard' },
  },
  operations: ['list', 'get', 'update', 'delete'],
  beforeWrite: byOwnCredential,
  // the rule needs no database: an update is one batch
  planned: {
    before: (who) => {
      requireOwnCredentialOf(who);
      return true;
    },
    beforeDelete: (who) => {
      requireOwnCredentialOf(who);
      return [];
    },
    afterDelete: (db, who, id) => [
      deleteStatement(db, who, { table: oauthGrants, type: 'oauthgrants', where: activeGrantsOf(who, id) }),
    ],
  },
  beforeDelete: byOwnCredential,
  // its grants end with it (each with its `deleted` event): no token of a deleted app works again,
  // whatever happens to the app's row
  async afterDelete({ tx, who }, id) {
    await deleteRecords(tx, who, { table: oauthGrants, type: 'oauthgrants', where: activeGrantsOf(who, id) });
  },
  afterCommit(id, record) {
    if (!record) forgetCredentials({ appId: id });
  },
});
