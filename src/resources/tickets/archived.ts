import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { tickets } from '../../db/schema';

/**
 * The platform archives a ticket solved or closed and not interacted with for 120 days (its help
 * centre, "Archived tickets"), and its API takes `archived=true|false` on the ticket list and the
 * search. Ours archives nothing away: `archived` is that rule read at query time, over the
 * ticket's status code (`solved` or `closed`, a team's own statuses by their code) and its last
 * touch (the later of its last change and its last thread entry).
 */
export const ARCHIVE_AFTER_DAYS = 120;

const archived = sql`(EXISTS (SELECT 1 FROM ticket_statuses st WHERE st.id = ${tickets.statusId} AND st.code IN ('solved', 'closed'))
  AND GREATEST(${tickets.updatedAt}, COALESCE(${tickets.lastMessageAt}, ${tickets.updatedAt})) < now() - make_interval(days => ${ARCHIVE_AFTER_DAYS}))`;

const VALUES = ['true', 'false', '1', '0', ''] as const;
export type ArchivedValue = (typeof VALUES)[number];

/**
 * `archived`, as the list and the search take it (their flags' values): `true` (or `1`) only
 * archived tickets, `false` (or `0`) none of them; absent or empty, both.
 */
export const archivedParam = z
  .enum(VALUES)
  .optional()
  .meta({
    description: `true: only archived tickets (solved or closed, untouched for ${ARCHIVE_AFTER_DAYS} days); false: none of them; absent: both`,
  });

/** The condition `archived` names, if any. */
export function archivedCondition(value: ArchivedValue | undefined): SQL | undefined {
  if (value === undefined || value === '') return undefined;
  return value === 'true' || value === '1' ? archived : sql`NOT ${archived}`;
}
