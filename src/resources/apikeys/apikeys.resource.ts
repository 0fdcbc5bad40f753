import { and, eq } from 'drizzle-orm';
import { EVERYONE } from '../../auth/access';
import { forgetCredentials } from '../../auth/authenticate';
import { credentials } from '../../db/schema';
import { AUDIT_SET, defineResource, refProperty, timeProperty } from '../../engine';
import { z } from 'zod';
import { includedUsers } from '../users/user-shape';

/** A key's name: what its owner calls it ("CI", "Zapier"). */
export const apiKeyName = z.string().trim().max(100);

/**
 * API keys (`credentials` of kind `api_key`): a teammate sees and revokes their own, an owner
 * everyone's. The secret is shown once, by the create (`create-api-key.route.ts`); only its hash is
 * stored. A delete revokes: the key stops at once in the isolate that revoked it and within the
 * credential cache's 30 seconds everywhere (`src/auth/authenticate.ts`).
 */
export const apiKeysResource = defineResource({
  type: 'apikeys',
  singular: 'apikey',
  title: { one: 'ApiKey', many: 'ApiKeys' },
  table: credentials,
  fields: {
    name: { column: credentials.name, schema: apiKeyName },
    prefix: { column: credentials.prefix, schema: z.string(), readOnly: true },
    user: {
      column: credentials.userId,
      schema: z.unknown(),
      readOnly: true,
      output: refProperty(credentials.userId, 'users', false),
    },
    lastUsedAt: {
      column: credentials.lastUsedAt,
      schema: z.unknown(),
      readOnly: true,
      output: timeProperty(credentials.lastUsedAt),
    },
    expiresAt: {
      column: credentials.expiresAt,
      schema: z.unknown(),
      readOnly: true,
      output: timeProperty(credentials.expiresAt),
    },
  },
  filter: [...AUDIT_SET, 'name', 'prefix', 'lastUsedAt'],
  orderByExtra: { user: credentials.userId },
  relations: { users: includedUsers((t) => [(t as typeof credentials).userId]) },
  access: { read: EVERYONE, write: EVERYONE },
  operations: ['list', 'get', 'delete'],
  scope: (who) =>
    and(
      eq(credentials.kind, 'api_key'),
      who.kind === 'teammate' && who.role === 'owner' ? undefined : eq(credentials.userId, who.userId ?? -1),
    ),
  afterCommit(id) {
    forgetCredentials({ credentialId: id });
  },
});
