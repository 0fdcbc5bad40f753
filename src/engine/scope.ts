import { and, eq, inArray, isNull, or, type Placeholder, type SQL } from 'drizzle-orm';
import type { Actor } from '../auth/principal';
import type { AuditedTable, ResourceDeclaration } from './types';

/** What a statement does with the rows it scopes: rows every installation shares are read, never written. */
export type ScopePurpose = 'read' | 'write';

/** Tables whose records live in more states than `active` (a trigger's `inactive`, `incomplete`): every state but `deleted` is live. */
const LIVE_STATES = new WeakMap<AuditedTable, readonly string[]>();

/** Declares the states in which a table's records are live (`liveStates` of a declaration). */
export function declareLiveStates(table: AuditedTable, states: readonly string[]): void {
  LIVE_STATES.set(table, states);
}

/** The condition of a live record of the table. */
export function liveCondition(table: AuditedTable): SQL {
  const states = LIVE_STATES.get(table);
  return states ? inArray(table.state, [...states]) : eq(table.state, 'active');
}

/** Whether the table's installation may be null: it then also holds rows every installation reads and none writes. */
export function holdsSharedRows(table: AuditedTable): boolean {
  return table.installationId?.notNull === false;
}

/**
 * The one place tenancy enters a query: every statement the engine runs selects through this,
 * so another installation's record is simply not there (a 404). Deleted records are left out
 * unless the caller's filter asks about `state`. A global table (a catalogue every
 * installation shares) has no installation column and is scoped by state alone. A table whose
 * installation column may be null (the platform's ticket statuses) also holds rows every
 * installation reads and none writes.
 */
export function tenantScope(
  table: AuditedTable,
  installationId: number | Placeholder | 'global',
  withDeleted = false,
  purpose: ScopePurpose = 'read',
): SQL | undefined {
  const live = withDeleted ? undefined : liveCondition(table);
  if (installationId === 'global') return live;
  const column = table.installationId;
  if (!column) throw new Error('a tenant table without installation_id');
  const own = eq(column, installationId);
  const tenancy = purpose === 'read' && holdsSharedRows(table) ? or(own, isNull(column)) : own;
  return and(tenancy, live);
}

/** The records of a resource the caller may see (or, for `write`, change) at all: tenancy plus the resource's own rule. */
export function recordScope(
  resource: ResourceDeclaration,
  who: Actor,
  withDeleted = false,
  purpose: ScopePurpose = 'read',
): SQL {
  const tenancy = tenantScope(
    resource.table,
    resource.tenancy === 'global' ? 'global' : who.installationId,
    withDeleted,
    purpose,
  );
  return and(tenancy, resource.scope?.(who)) ?? eq(resource.table.id, resource.table.id);
}
