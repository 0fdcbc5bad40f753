import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { writableFields } from './resource';
import type { ResourceDeclaration } from './types';
import { typed, type WireValue } from './wire';

/** The wire properties a write of these body properties may change: watched for the `updated` event. */
export function watchedProperties(
  resource: ResourceDeclaration,
  record: Record<string, unknown>,
): Record<string, WireValue> {
  const watched: Record<string, WireValue> = {};
  for (const [name, field] of Object.entries(writableFields(resource))) {
    if (record[name] === undefined) continue;
    // A secret's event says that it changed, by a digest of its ciphertext (new on every write), never what it is; a large value's, by its digest.
    watched[name] =
      field.writeOnly || field.digestInEvents
        ? typed(sql`md5(${field.column})`, z.string().nullable())
        : (field.output ?? field.column);
  }
  return watched;
}
