import { and, eq } from 'drizzle-orm';
import { ADMINS, requireOwnCredential } from '../../auth/access';
import { newSecret } from '../../auth/secrets';
import { oauthApps } from '../../db/schema';
import { readBack } from '../../engine';
import { noteEvents, recordEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { createdBody } from './create-oauth-app';
import { oauthAppsResource } from './oauthapps.resource';

/**
 * `POST /v2/oauthapps/{id}/secret.json`: a new client secret for a confidential app, in this
 * answer only; the old one stops at once (the token endpoint reads the digest on every request).
 * Its grants and tokens stand. Owners and admins, with an API key.
 */
export const rotateSecretRoute = defineRoute({
  method: 'post', path: '/v2/oauthapps/{id}/secret.json', tag: 'OAuth', operationId: 'rotateOAuthAppSecret', roles: ADMINS,
  summary: "Replace an app's client secret; the new one is in this answer only",
  request: { params: idParams },
  responses: { 200: jsonResponse('the app, with its new `clientSecret`', createdBody), 409: errorResponse('a public app has no secret') },
}, async (c) => {
  const who = c.var.principal;
  requireOwnCredential(who);
  const { id } = c.req.valid('param');
  const secret = await newSecret('hds_');
  const body = await c.var.db.transaction(async (tx) => {
    const [app] = await tx.select({ clientType: oauthApps.clientType, secretPrefix: oauthApps.secretPrefix }).from(oauthApps)
      .where(and(eq(oauthApps.id, id), eq(oauthApps.installationId, who.installationId), eq(oauthApps.state, 'active')));
    if (!app) throw ApiError.notFound('id', `no oauthapps ${id} here`);
    if (app.clientType === 'public') throw ApiError.conflict('id', 'a public app has no client secret');
    await tx.update(oauthApps).set({ secretHash: secret.hash, secretPrefix: secret.prefix, updatedAt: new Date(), updatedBy: who.userId })
      .where(and(eq(oauthApps.id, id), eq(oauthApps.installationId, who.installationId)));
    // the secret itself is in no event: its prefix tells it changed
    await recordEvents(tx, who, [{ recordType: 'oauthapps', recordId: id, kind: 'updated', data: { secretPrefix: { before: app.secretPrefix, after: secret.prefix } } }]);
    return readBack(tx, oauthAppsResource, who, id, []);
  });
  noteEvents(c.var.db, who.installationId, [['oauthapps', 'updated', ['secretPrefix']]]);
  return c.json({ oauthapp: { ...body.oauthapp, clientSecret: secret.secret }, included: {} }, 200);
});
