import { and, eq, ne, sql } from 'drizzle-orm';
import { businessHours } from '../../db/schema';
import { updateRecords, type WriteContext } from '../../engine';

/**
 * Business hours about to become the default take the flag from the others, in the same
 * transaction, so an installation keeps at most one live default (a unique index holds it).
 * Writes making a default in one installation take turns (a transaction-scoped lock), so two
 * at once both succeed, the later one winning, instead of one failing on the index.
 */
export async function clearOtherDefaults({ tx, who }: WriteContext, id: number | undefined): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('business_hours_default'), ${who.installationId}::int)`);
  const others = and(
    eq(businessHours.installationId, who.installationId),
    eq(businessHours.state, 'active'),
    eq(businessHours.isDefault, true),
    id === undefined ? undefined : ne(businessHours.id, id),
  )!;
  await updateRecords(tx, who, { table: businessHours, type: 'businesshours', where: others }, { isDefault: false }, { isDefault: businessHours.isDefault });
}
