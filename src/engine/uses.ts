import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Actor } from '../auth/principal';
import type { Transaction } from '../db/client';
import { ApiError } from '../http/errors';
import { refuseWhen } from '../db/refusal';
import { updateRecords, updateStatement, type Writer } from './changes';
import { columnKey } from './columns';
import { recordScope, tenantScope } from './scope';
import type { RecordUse, ResourceDeclaration } from './types';

/**
 * Before a record is deleted, the records naming it (`usedBy`) are moved to `replaceWith`, each
 * with its `updated` event; without a replacement a record in use is a 409 saying how many use it.
 */
export async function moveUses(
  tx: Transaction,
  resource: ResourceDeclaration,
  who: Actor,
  id: number,
  replaceWith: number | undefined,
): Promise<void> {
  const uses = resource.usedBy ?? [];
  if (replaceWith !== undefined) {
    if (replaceWith === id)
      throw ApiError.invalid('replaceWith', `must name another ${resource.singular} than the one deleted`);
    const [found] = await tx
      .select({ id: resource.table.id })
      .from(resource.table as PgTable)
      .where(and(recordScope(resource, who), eq(resource.table.id, replaceWith)));
    if (!found) throw ApiError.invalid('replaceWith', `no ${resource.type} ${replaceWith} here`);
  }
  const using: string[] = [];
  for (const use of uses) {
    const naming = and(tenantScope(use.table, who.installationId, false, 'write'), eq(use.column, id))!;
    if (replaceWith === undefined) {
      const [{ count }] = (await tx
        .select({ count: sql<number>`count(*)::int` })
        .from(use.table as PgTable)
        .where(naming)) as [{ count: number }];
      if (count > 0) using.push(`${count} ${use.type}`);
      continue;
    }
    await updateRecords(
      tx,
      who,
      { table: use.table, type: use.type, where: naming },
      { [columnKey(use.table, use.column)]: replaceWith },
      { [use.property]: use.column },
    );
  }
  if (using.length) {
    throw ApiError.conflict(
      'replaceWith',
      `${resource.singular} ${id} is in use (${using.join(', ')}); name another to move them to with replaceWith`,
    );
  }
}

/**
 * `moveUses` as statements of the delete's batch, after the record is locked: the replacement
 * checked, then each use moved with its events; without one, a record in use stops the batch with
 * the same 409 counting its uses.
 */
export function moveUsesStatements(
  db: Writer,
  resource: ResourceDeclaration,
  who: Actor,
  id: number,
  replaceWith: number | undefined,
): SQL[] {
  const uses = resource.usedBy ?? [];
  const naming = (use: RecordUse) =>
    and(tenantScope(use.table, who.installationId, false, 'write'), eq(use.column, id))!;
  if (replaceWith === undefined) {
    if (uses.length === 0) return [];
    const counts = uses.map(
      (use) =>
        sql`CASE WHEN n.${sql.identifier(`n_${use.type}`)} > 0 THEN n.${sql.identifier(`n_${use.type}`)} || ${` ${use.type}`} END`,
    );
    const counted = uses.map(
      (use) => sql`(SELECT count(*)::int FROM ${use.table} WHERE ${naming(use)}) AS ${sql.identifier(`n_${use.type}`)}`,
    );
    return [
      sql`SELECT desk_refuse(409, 'replaceWith', format(${`${resource.singular} ${id} is in use (%s); name another to move them to with replaceWith`}::text, u.using))
      FROM (SELECT concat_ws(', ', ${sql.join(counts, sql`, `)}) AS using FROM (SELECT ${sql.join(counted, sql`, `)}) n) u WHERE u.using <> ''`,
    ];
  }
  return [
    replaceWith === id
      ? sql`SELECT desk_refuse(400, 'replaceWith', ${`must name another ${resource.singular} than the one deleted`}::text)`
      : refuseWhen(
          sql`NOT EXISTS (SELECT 1 FROM ${resource.table} WHERE ${and(recordScope(resource, who), eq(resource.table.id, replaceWith))})`,
          400,
          'replaceWith',
          `no ${resource.type} ${replaceWith} here`,
        ),
    ...uses.map((use) =>
      updateStatement(
        db,
        who,
        { table: use.table, type: use.type, where: naming(use) },
        { [columnKey(use.table, use.column)]: replaceWith },
        { [use.property]: use.column },
      ),
    ),
  ];
}
