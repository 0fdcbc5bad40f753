import { sql, type SQL } from 'drizzle-orm';
import type { Transaction } from '../../db/client';

/** How long the isolate trusts what it read of an installation's endpoints. */
const TRUSTED_MS = 30_000;
const MAX_ENTRIES = 10_000;

const known = new Map<number, { has: boolean; until: number }>();

/** Whether the installation (SQL) has an enabled endpoint: one a fan-out would send to. */
export function anEnabledEndpoint(installation: SQL): SQL {
  return sql`EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.installation_id = ${installation} AND w.state = 'active' AND w.enabled)`;
}

/**
 * Whether the installation has an enabled endpoint, as this isolate read it in the last 30 s:
 * lets a write of an installation without one skip looking for events to fan out
 * (`inTransaction.mayWant`). An endpoint made or changed through this isolate is read again at
 * once; one made through another is seen within 30 s, its events meanwhile fanned out by the
 * drain.
 */
export async function hasEndpoints(tx: Transaction, installationId: number): Promise<boolean> {
  const entry = known.get(installationId);
  if (entry && entry.until > Date.now()) return entry.has;
  const { rows } = await tx.execute(sql`SELECT ${anEnabledEndpoint(sql`${installationId}::int`)} AS has`);
  const has = rows[0]?.has === true;
  if (known.size >= MAX_ENTRIES) known.clear();
  known.set(installationId, { has, until: Date.now() + TRUSTED_MS });
  return has;
}

/** Forgets what was read of the installation's endpoints: one of them is being written. */
export function forgetEndpoints(installationId: number): void {
  known.delete(installationId);
}
