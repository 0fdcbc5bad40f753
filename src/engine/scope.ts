import { and, eq, type Placeholder, type SQL } from 'drizzle-orm';
import type { Actor } from '../auth/principal';
import type { AuditedTable, ResourceDeclaration } from './types';

/**
 * The one place tenancy enters a query: every statement the engine runs selects through this,
 * so another installation's record is simply not there (a 404). Deleted records are left out
 * unless the caller's filter asks about `state`. A global table (a catalogue every
 * installation shares) has no installation column and is scoped by state alone.
 */
export function tenantScope(table: AuditedTable, installationId: number | Placeholder | 'global', withDeleted = false): SQL | undefined {
  const live = withDeleted ? undefined : eq(table.state, 'active');
  if (installationId === 'global') return live;
  if (!table.installationId) throw new Error('a tenant table without installation_id');
  return and(eq(table.installationId, installationId), live);
}

/** The records of a resource the caller may see at all: tenancy plus the resource's own rule. */
export function recordScope(resource: ResourceDeclaration, who: Actor, withDeleted = false): SQL {
  const tenancy = tenantScope(resource.table, resource.tenancy === 'global' ? 'global' : who.installationId, withDeleted);
  return and(tenancy, resource.scope?.(who)) ?? eq(resource.table.id, resource.table.id);
}
