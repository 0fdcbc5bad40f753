import { sql, type SQL } from 'drizzle-orm';
import { refuseWhen } from '../../db/refusal';
import type { WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';

/** The status a ticket takes for a code (`spam`, `closed`): the installation's own of that code, else the platform's. */
export async function statusOfCode({ tx, who }: Pick<WriteContext, 'tx' | 'who'>, code: StatusCode): Promise<number> {
  const { rows } = await tx.execute(sql`SELECT ${statusIdOfCode(who, code)} AS id`);
  if (rows[0]?.id == null) throw ApiError.conflict('status', noStatusOfCode(code));
  return Number(rows[0].id);
}

type StatusCode = 'spam' | 'closed';

const noStatusOfCode = (code: StatusCode) => `this installation has no status of code ${code}`;

/** `statusOfCode` as SQL (null when there is none). */
export function statusIdOfCode(who: WriteContext['who'], code: StatusCode): SQL {
  return sql`(SELECT id FROM ticket_statuses WHERE code = ${code} AND state = 'active'
    AND (installation_id = ${who.installationId} OR installation_id IS NULL) ORDER BY installation_id NULLS LAST, id LIMIT 1)`;
}

/** A check of a batch: the 409 `statusOfCode` answers when there is no status of the code. */
export function requireStatusOfCode(who: WriteContext['who'], code: StatusCode): SQL {
  return refuseWhen(sql`${statusIdOfCode(who, code)} IS NULL`, 409, 'status', noStatusOfCode(code));
}
