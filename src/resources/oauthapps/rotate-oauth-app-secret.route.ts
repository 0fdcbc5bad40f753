import { and, eq, sql } from 'drizzle-orm';
import { ADMINS, requireOwnCredential } from '../../auth/access';
import { newSecret } from '../../auth/secrets';
import { oauthApps } from '../../db/schema';
import { sendWithReadBack, updateStatement } from '../../engine';
import { idParams } from '../../http/params';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { createdBody } from './created-body';

import { oauthAppsResource } from './oauthapps.resource';

/**
 * `POST /v2/oauthapps/{id}/secret.json`: a new client secret for a confidential app, in this
 * answer only; the old one stops at once (the token endpoint reads the digest on every request).
 * Its grants and tokens stand. Owners and admins, with an API key.
 */
export const rotateOAuthAppSecretRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/oauthapps/{id}/secret.json',
    tag: 'OAuth',
    operationId: 'rotateOAuthAppSecret',
    roles: ADMINS,
    summary: "Replace an app's client secret; the new one is in this answer only",
    description:
      "Gives a confidential app a new client secret, answered with the app this once; the old secret stops at once, while the app's grants and tokens stand. A public app has no secret (409), an app not of the installation or deleted is a 404, and a call made with an OAuth token is a 403. Records an `updated` event of the app naming the new `secretPrefix`, never the secret. See docs/oauth.md.",
    request: { params: idParams },
    responses: {
      200: jsonResponse('the app, with its new `clientSecret`', createdBody),
      409: errorResponse('a public app has no secret'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    requireOwnCredential(who);
    const { id } = c.req.valid('param');
    const secret = await newSecret('hds_');
    const app = and(
      eq(oauthApps.id, id),
      eq(oauthApps.installationId, who.installationId),
      eq(oauthApps.state, 'active'),
    )!;
    // one exchange: the app locked and checked, the new digest with its event, the app read back
    const statements = [
      sql`WITH locked AS (SELECT ${oauthApps.clientType} AS type FROM ${oauthApps} WHERE ${app} FOR UPDATE)
      SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM locked) THEN desk_refuse(404, 'id', ${`no oauthapps ${id} here`}::text)
        ELSE desk_refuse(409, 'id', 'a public app has no client secret') END
       WHERE NOT EXISTS (SELECT 1 FROM locked WHERE type <> 'public')`,
      // the secret itself is in no event: its prefix tells it changed
      updateStatement(
        c.var.db.http,
        who,
        { table: oauthApps, type: 'oauthapps', where: app },
        { secretHash: secret.hash, secretPrefix: secret.prefix },
        { secretPrefix: oauthApps.secretPrefix },
      ),
    ];
    const body = await sendWithReadBack(c.var.db, oauthAppsResource, who, statements, sql`${id}::int`, []);
    if (!body) throw new Error(`oauthapp ${id} is not there to read back`);
    return c.json({ oauthapp: { ...body.oauthapp, clientSecret: secret.secret }, included: {} }, 200);
  },
);
