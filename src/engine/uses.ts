import { and, eq, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Actor } from '../auth/principal';
import type { Transaction } from '../db/client';
import { ApiError } from '../http/errors';
import { updateRecords } from './changes';
import { columnKey } from './columns';
import { recordScope, tenantScope } from './scope';
import type { ResourceDeclaration } from './types';

/**
 * Before a record is deleted, the records naming it (`usedBy`) are moved to `replaceWith`, each
 * with its `updated` event; without a replacement a record in use is a 409 saying how many use it.
 */
export async function moveUses(tx: Transaction, resource: ResourceDeclaration, who: Actor, id: number, replaceWith: number | undefined): Promise<void> {
  const uses = resource.usedBy ?? [];
  if (replaceWith !== undefined) {
    if (replaceWith === id) throw ApiError.invalid('replaceWith', `must name another ${resource.singular} than the one deleted`);
    const [found] = await tx.select({ id: resource.table.id }).from(resource.table as PgTable).where(and(recordScope(resource, who), eq(resource.table.id, replaceWith)));
    if (!found) throw ApiError.invalid('replaceWith', `no ${resource.type} ${replaceWith} here`);
  }
  const using: string[] = [];
  for (const use of uses) {
    const naming = and(tenantScope(use.table, who.installationId, false, 'write'), eq(use.column, id))!;
    if (replaceWith === undefined) {
      const [{ count }] = (await tx.select({ count: sql<number>`count(*)::int` }).from(use.table as PgTable).where(naming)) as [{ count: number }];
      if (count > 0) using.push(`${count} ${use.type}`);
      continue;
    }
    await updateRecords(tx, who, { table: use.table, type: use.type, where: naming }, { [columnKey(use.table, use.column)]: replaceWith }, { [use.property]: use.column });
  }
  if (using.length) {
    throw ApiError.conflict('replaceWith', `${resource.singular} ${id} is in use (${using.join(', ')}); name another to move them to with replaceWith`);
  }
}
