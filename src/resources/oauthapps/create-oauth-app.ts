import { z } from 'zod';
import { ADMINS, requireOwnCredential } from '../../auth/access';
import { newSecret } from '../../auth/secrets';
import { OAUTH_CLIENT_TYPES, oauthApps } from '../../db/schema';
import { createRecords, readBack, schemasOf } from '../../engine';
import { noteEvents } from '../../events/record-events';
import { recordBody, writableRecord } from '../../http/record-body';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { appName, appScopes, oauthAppsResource } from './oauthapps.resource';
import { redirectUris } from './redirect-uri';

const createRecord = writableRecord(
  {
    name: appName,
    redirectUris,
    scopes: appScopes.optional(),
    clientType: z.enum(OAUTH_CLIENT_TYPES).optional().meta({ description: '`confidential` (default): it gets a client secret; `public` (a native or in-browser app): none, PKCE (required of every app) is its only proof' }),
  },
  ['clientId', 'secretPrefix', 'clientSecret'],
).meta({ id: 'OAuthAppCreate' });

const s = schemasOf(oauthAppsResource);
export const createdBody = z
  .object({
    oauthapp: s.record.extend({ clientSecret: z.string().nullable().meta({ description: 'the client secret: shown this once, never again; null for a public app' }) }),
    included: z.object({}),
  })
  .meta({ id: 'OAuthAppCreatedBody' });

/**
 * `POST /v2/oauthapps.json`: registers an app, answered with its `client_id` and (a confidential
 * one) its client secret, this once. Owners and admins, with an API key.
 */
export const createOAuthAppRoute = defineRoute({
  method: 'post', path: '/v2/oauthapps.json', tag: 'OAuth', operationId: 'createOAuthApp', roles: ADMINS,
  summary: 'Register an OAuth app; its client secret is in this answer only',
  request: { body: { required: true, content: { 'application/json': { schema: recordBody('oauthapp', createRecord) } } } },
  responses: { 201: jsonResponse('the app, with `clientSecret`', createdBody) },
}, async (c) => {
  const who = c.var.principal;
  requireOwnCredential(who);
  const body = c.req.valid('json');
  const clientType = body.clientType ?? 'confidential';
  const clientId = (await newSecret('hdc_')).secret.slice(0, 28);
  const secret = clientType === 'confidential' ? await newSecret('hds_') : undefined;
  const created = await c.var.db.transaction(async (tx) => {
    const [id] = await createRecords(tx, who, { table: oauthApps, type: 'oauthapps' }, [{
      installationId: who.installationId, name: body.name, redirectUris: body.redirectUris, clientId, clientType,
      secretHash: secret?.hash ?? null, secretPrefix: secret?.prefix ?? null, ...(body.scopes ? { scopes: body.scopes } : {}),
    }]);
    return readBack(tx, oauthAppsResource, who, id!, []);
  });
  noteEvents(c.var.db, who.installationId, [['oauthapps', 'created']]);
  return c.json({ oauthapp: { ...created.oauthapp, clientSecret: secret?.secret ?? null }, included: {} }, 201);
});
