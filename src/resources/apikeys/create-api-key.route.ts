import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { EVERYONE, requireOwnCredential } from '../../auth/access';
import type { Actor } from '../../auth/principal';
import { newApiKey } from '../../auth/secrets';
import { recalled, refuseWhen, remember } from '../../db/refusal';
import { credentials, users } from '../../db/schema';
import { createStatement, referenceInput, schemasOf, sendWithReadBack } from '../../engine';
import { ApiError } from '../../http/errors';
import { recordBody, writableRecord } from '../../http/record-body';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { OWNER_OR_ADMIN_IS_AN_OWNERS } from '../users/teammate-rules';
import { apiKeyName, apiKeysResource } from './apikeys.resource';

const createRecord = writableRecord(
  {
    name: apiKeyName.optional(),
    user: referenceInput('users').optional().meta({
      description:
        "whose key: the caller's when absent; an owner may name any teammate, an admin an agent or collaborator (to hand a new teammate their first key)",
    }),
  },
  ['prefix', 'lastUsedAt', 'expiresAt', 'secret'],
).meta({ id: 'ApiKeyCreate' });

const s = schemasOf(apiKeysResource);

/** The name the new key's id goes by in the batch. */
const CREATED = 'apikey_id';
const createdBody = z
  .object({
    apikey: s.record.extend({
      secret: z.string().meta({ description: 'the key itself: shown this once, never again' }),
    }),
    included: z.object({}),
  })
  .meta({ id: 'ApiKeyCreatedBody' });

/**
 * `POST /v2/apikeys.json`: a new key for the caller (or, by an owner or admin, for a live
 * teammate named by `user`), answered with its secret this once. Its `created` event never holds the secret.
 * One batch (one round trip): the teammate's checks are its statements.
 */
export const createApiKeyRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/apikeys.json',
    tag: 'ApiKeys',
    operationId: 'createApiKey',
    roles: EVERYONE,
    summary: 'Create an API key; its secret is in this answer only',
    description:
      'Makes a key for the caller, or for the live teammate named by `user`, and answers 201 with its `secret` this once: only its hash is stored, and the `created` event never holds it. An owner may name any teammate and an admin an agent or collaborator; anyone else naming another teammate, or an admin naming an owner or admin, is a 403, as is a call made with an OAuth token. A teammate not of the installation is a 400 naming `apikey.user`. See docs/resources/apikeys.md.',
    request: {
      body: { required: true, content: { 'application/json': { schema: recordBody('apikey', createRecord) } } },
    },
    example: { body: { apikey: { name: 'Reporting script' } } },
    responses: { 201: jsonResponse('the key, with `secret`', createdBody) },
  },
  async (c) => {
    const who = c.var.principal;
    requireOwnCredential(who);
    const body = c.req.valid('json');
    const owner = body.user ?? who.userId;
    if (owner !== who.userId && who.role !== 'owner' && who.role !== 'admin')
      throw ApiError.forbidden('only an owner or admin makes a key for another teammate');
    const key = await newApiKey();
    const teammate = sql`SELECT 1 FROM ${users} WHERE ${and(eq(users.id, owner), eq(users.installationId, who.installationId), eq(users.state, 'active'))}`;
    // one exchange: the teammate checked, the key with its event, the key read back
    const statements = [
      refuseWhen(sql`NOT EXISTS (${teammate})`, 400, 'apikey.user', `no teammate ${owner} here`),
      // A key is its teammate's power: an admin may not mint one for an owner or another admin (`requireOwnerFor`).
      owner === who.userId || who.role === 'owner'
        ? undefined
        : refuseWhen(
            sql`EXISTS (${teammate} AND ${users.role} IN ('owner', 'admin'))`,
            403,
            '',
            OWNER_OR_ADMIN_IS_AN_OWNERS,
          ),
      createStatement(
        c.var.db.http,
        who,
        { table: credentials, type: 'apikeys' },
        [
          {
            installationId: who.installationId,
            userId: owner,
            kind: 'api_key',
            name: body.name ?? '',
            prefix: key.prefix,
            secretHash: key.hash,
          },
        ],
        undefined,
        sql`id, ${remember(CREATED, sql`id`)}`,
      ),
    ];
    // read back as its teammate, who sees their own keys whatever their role
    const reader: Actor = {
      kind: 'teammate',
      installationId: who.installationId,
      userId: owner,
      role: owner === who.userId ? who.role : 'agent',
    };
    const created = await sendWithReadBack(c.var.db, apiKeysResource, reader, statements, recalled(CREATED), []);
    if (!created) throw new Error('the new apikey is not there to read back');
    return c.json({ apikey: { ...created.apikey, secret: key.secret }, included: {} }, 201);
  },
);
