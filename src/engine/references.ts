import { and, eq } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Actor } from '../auth/principal';
import type { Database, Transaction } from '../db/client';
import { ApiError } from '../http/errors';
import type { ResourceDeclaration } from './types';
import { tenantScope } from './scope';

/** A transaction or the HTTP client: what a check that only selects runs on. */
export type Selecting = Pick<Transaction, 'select'> | Pick<Database['http'], 'select'>;

/**
 * Each property that names another record must name a live one of the caller's installation:
 * a foreign key alone would let one installation point at another's records. A 400 names the property.
 */
export async function requireReferences(
  db: Selecting,
  resource: ResourceDeclaration,
  who: Actor,
  record: Record<string, unknown>,
): Promise<void> {
  for (const [name, field] of Object.entries(resource.fields)) {
    const id = record[name];
    if (!field.references || id === undefined || id === null) continue;
    const { table, type } = field.references;
    const found = await db
      .select({ id: table.id })
      .from(table as PgTable)
      .where(and(tenantScope(table, who.installationId), eq(table.id, id as number)));
    if (found.length === 0) throw ApiError.invalid(`${resource.singular}.${name}`, `no ${type} ${id} here`);
  }
}
