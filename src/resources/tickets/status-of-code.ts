import { sql } from 'drizzle-orm';
import type { WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';

/** The status a ticket takes for a code (`spam`, `closed`): the installation's own of that code, else the platform's. */
export async function statusOfCode({ tx, who }: Pick<WriteContext, 'tx' | 'who'>, code: 'spam' | 'closed'): Promise<number> {
  const { rows } = await tx.execute(sql`SELECT id FROM ticket_statuses WHERE code = ${code} AND state = 'active'
    AND (installation_id = ${who.installationId} OR installation_id IS NULL) ORDER BY installation_id NULLS LAST, id LIMIT 1`);
  if (!rows[0]) throw ApiError.conflict('status', `this installation has no status of code ${code}`);
  return Number(rows[0].id);
}
