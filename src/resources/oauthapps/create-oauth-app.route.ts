import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS, requireOwnCredential } from '../../auth/access';
import { newSecret } from '../../auth/secrets';
import { recalled, remember } from '../../db/refusal';
import { OAUTH_CLIENT_TYPES, oauthApps } from '../../db/schema';
import { createStatement, sendWithReadBack } from '../../engine';
import { recordBody, writableRecord } from '../../http/record-body';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { createdBody } from './created-body';
import { appName, appScopes, oauthAppsResource } from './oauthapps.resource';
import { redirectUris } from './redirect-uri';

const createRecord = writableRecord(
  {
    name: appName,
    redirectUris,
    scopes: appScopes.optional(),
    clientType: z.enum(OAUTH_CLIENT_TYPES).optional().meta({
      description:
        '`confidential` (default): it gets a client secret; `public` (a native or in-browser app): none, PKCE (required of every app) is its only proof',
    }),
  },
  ['clientId', 'secretPrefix', 'clientSecret'],
).meta({ id: 'OAuthAppCreate' });

/** The name the new app's id goes by in the batch. */
const CREATED = 'oauthapp_id';

/**
 * `POST /v2/oauthapps.json`: registers an app, answered with its `client_id` and (a confidential
 * one) its client secret, this once. Owners and admins, with an API key.
 */
export const createOAuthAppRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/oauthapps.json',
    tag: 'OAuth',
    operationId: 'createOAuthApp',
    roles: ADMINS,
    summary: 'Register an OAuth app; its client secret is in this answer only',
    description:
      'Registers an app that signs teammates in through the app login flow and answers 201 with its public `clientId` and, for a `confidential` app (the default), its `clientSecret` this once: only its digest is stored. A `public` app gets no secret; PKCE, required of every app, is its only proof. Each redirect URI must be absolute, without a fragment or user info, over https (http only to this machine) or a private-use scheme, else a 400 naming it; `scopes` are of `desk` and `desk:read`, `["desk"]` by default. A call made with an OAuth token is a 403; records a `created` event of the app. See docs/oauth.md.',
    request: {
      body: { required: true, content: { 'application/json': { schema: recordBody('oauthapp', createRecord) } } },
    },
    example: {
      body: {
        oauthapp: {
          name: 'Reporting dashboard',
          redirectUris: ['https://dashboard.acme.example/callback'],
          scopes: ['desk:read'],
        },
      },
    },
    responses: { 201: jsonResponse('the app, with `clientSecret`', createdBody) },
  },
  async (c) => {
    const who = c.var.principal;
    requireOwnCredential(who);
    const body = c.req.valid('json');
    const clientType = body.clientType ?? 'confidential';
    const clientId = (await newSecret('hdc_')).secret.slice(0, 28);
    const secret = clientType === 'confidential' ? await newSecret('hds_') : undefined;
    // one exchange: the app with its event, read back
    const insert = createStatement(
      c.var.db.http,
      who,
      { table: oauthApps, type: 'oauthapps' },
      [
        {
          installationId: who.installationId,
          name: body.name,
          redirectUris: body.redirectUris,
          clientId,
          clientType,
          secretHash: secret?.hash ?? null,
          secretPrefix: secret?.prefix ?? null,
          ...(body.scopes ? { scopes: body.scopes } : {}),
        },
      ],
      undefined,
      sql`id, ${remember(CREATED, sql`id`)}`,
    );
    const created = await sendWithReadBack(c.var.db, oauthAppsResource, who, [insert], recalled(CREATED), []);
    if (!created) throw new Error('the new oauthapp is not there to read back');
    return c.json({ oauthapp: { ...created.oauthapp, clientSecret: secret?.secret ?? null }, included: {} }, 201);
  },
);
