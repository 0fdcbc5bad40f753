import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { EVERYONE, requireOwnCredential } from '../../auth/access';
import { newApiKey } from '../../auth/secrets';
import { credentials, users } from '../../db/schema';
import { createRecords, readBack, referenceInput, schemasOf } from '../../engine';
import { noteEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { recordBody, writableRecord } from '../../http/record-body';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { requireOwnerFor } from '../users/teammate-rules';
import { apiKeyName, apiKeysResource } from './apikeys.resource';

const createRecord = writableRecord(
  {
    name: apiKeyName.optional(),
    user: referenceInput('users').optional().meta({ description: "whose key: the caller's when absent; an owner may name any teammate, an admin an agent or collaborator (to hand a new teammate their first key)" }),
  },
  ['prefix', 'lastUsedAt', 'expiresAt', 'secret'],
).meta({ id: 'ApiKeyCreate' });

const s = schemasOf(apiKeysResource);
const createdBody = z
  .object({ apikey: s.record.extend({ secret: z.string().meta({ description: 'the key itself: shown this once, never again' }) }), included: z.object({}) })
  .meta({ id: 'ApiKeyCreatedBody' });

/**
 * `POST /v2/apikeys.json`: a new key for the caller (or, by an owner or admin, for a live
 * teammate named by `user`), answered with its secret this once. Its `created` event never holds the secret.
 */
export const createApiKeyRoute = defineRoute({
  method: 'post', path: '/v2/apikeys.json', tag: 'ApiKeys', operationId: 'createApiKey', roles: EVERYONE,
  summary: 'Create an API key; its secret is in this answer only',
  request: { body: { required: true, content: { 'application/json': { schema: recordBody('apikey', createRecord) } } } },
  responses: { 201: jsonResponse('the key, with `secret`', createdBody) },
}, async (c) => {
  const who = c.var.principal;
  requireOwnCredential(who);
  const body = c.req.valid('json');
  const owner = body.user ?? who.userId;
  if (owner !== who.userId && who.role !== 'owner' && who.role !== 'admin') throw ApiError.forbidden('only an owner or admin makes a key for another teammate');
  const key = await newApiKey();
  const created = await c.var.db.transaction(async (tx) => {
    const [teammate] = await tx.select({ role: users.role }).from(users).where(and(eq(users.id, owner), eq(users.installationId, who.installationId), eq(users.state, 'active')));
    if (!teammate) throw ApiError.invalid('apikey.user', `no teammate ${owner} here`);
    // A key is its teammate's power: an admin may not mint one for an owner or another admin.
    if (owner !== who.userId) requireOwnerFor(who, teammate.role);
    const [id] = await createRecords(tx, who, { table: credentials, type: 'apikeys' }, [
      { installationId: who.installationId, userId: owner, kind: 'api_key', name: body.name ?? '', prefix: key.prefix, secretHash: key.hash },
    ]);
    // read back as its teammate, who sees their own keys
    return readBack(tx, apiKeysResource, { kind: 'teammate', installationId: who.installationId, userId: owner, role: teammate.role }, id!, []);
  });
  noteEvents(c.var.db, who.installationId, [['apikeys', 'created']]);
  return c.json({ apikey: { ...created.apikey, secret: key.secret }, included: {} }, 201);
});
