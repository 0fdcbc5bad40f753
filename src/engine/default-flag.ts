import { and, eq, ne, sql } from 'drizzle-orm';
import { updateRecords } from './changes';
import { columnKey } from './columns';
import { tenantScope } from './scope';
import type { ResourceDeclaration, WriteContext } from './types';

/**
 * A record about to become its installation's default (`defaultFlag` set true) takes the flag
 * from the others, each with its `updated` event, in the same transaction, so an installation
 * keeps at most one live default (a unique index holds it). Writes making a default in one
 * installation take turns (a transaction-scoped lock), so two at once both succeed, the later
 * one winning, instead of one failing on the index.
 */
export async function takeDefaultFlag(
  { tx, who }: WriteContext,
  resource: ResourceDeclaration,
  record: Record<string, unknown>,
  id: number | undefined,
): Promise<void> {
  const property = resource.defaultFlag;
  if (!property || record[property] !== true) return;
  const table = resource.table;
  const flag = resource.fields[property]!.column;
  await tx.execute(
    sql`SELECT pg_advisory_xact_lock(hashtext(${`${resource.type}.${property}`}), ${who.installationId}::int)`,
  );
  const others = and(
    tenantScope(table, who.installationId, false, 'write'),
    eq(flag, true),
    id === undefined ? undefined : ne(table.id, id),
  )!;
  await updateRecords(
    tx,
    who,
    { table, type: resource.type, where: others },
    { [columnKey(table, flag)]: false },
    { [property]: flag },
  );
}
