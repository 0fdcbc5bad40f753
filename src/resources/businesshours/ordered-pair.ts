import { and, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Actor } from '../../auth/principal';
import type { Transaction } from '../../db/client';
import { ApiError } from '../../http/errors';
import type { AuditedTable } from '../../engine';
import { tenantScope } from '../../engine';

/** Two properties of a record where one must not come before the other (a schedule's hours, a holiday's dates). */
export interface OrderedPair {
  table: AuditedTable;
  start: { name: string; column: PgColumn };
  end: { name: string; column: PgColumn };
  /** the end may equal the start (a one-day holiday) */
  allowEqual: boolean;
}

/** One record being written: where its properties sit in the body, its id when it exists, and the values sent. */
export interface PairEntry {
  source: string;
  id?: number;
  values: Record<string, unknown>;
}

/** Entries that send their start, their end or both: those the order is checked for. */
const sendingEither = (pair: OrderedPair, entries: PairEntry[]) =>
  entries.filter((e) => e.values[pair.start.name] !== undefined || e.values[pair.end.name] !== undefined);

/**
 * What an entry out of order is told: the property at fault (the end where it sent one) and the
 * detail, `%s` standing for the other property's value, which may be the stored one.
 */
function disorder(pair: OrderedPair, entry: PairEntry): { source: string; detail: string } {
  const { start, end } = pair;
  const culprit = entry.values[end.name] !== undefined ? end.name : start.name;
  const other = culprit === end.name ? start.name : end.name;
  const relation =
    culprit === end.name
      ? pair.allowEqual
        ? 'not be before'
        : 'be after'
      : pair.allowEqual
        ? 'not be after'
        : 'be before';
  return { source: `${entry.source}.${culprit}`, detail: `must ${relation} ${other} (%s)` };
}

/**
 * Answers 400 naming the property at fault when an entry's end would not come after its start
 * (both are fixed-width text, so text order is time order). An entry that changes only one of
 * them is checked against the other as stored; ids not found are left to the write to refuse.
 */
export async function requireOrdered(
  tx: Transaction,
  who: Actor,
  pair: OrderedPair,
  entries: PairEntry[],
  within?: SQL,
): Promise<void> {
  const { start, end } = pair;
  const partial = entries.filter(
    (e) => e.id !== undefined && (e.values[start.name] === undefined) !== (e.values[end.name] === undefined),
  );
  const stored = new Map<number, { start: string; end: string }>();
  if (partial.length) {
    const rows = await tx
      .select({ id: pair.table.id, start: start.column, end: end.column })
      .from(pair.table as PgTable)
      .where(
        and(
          tenantScope(pair.table, who.installationId),
          within,
          inArray(
            pair.table.id,
            partial.map((e) => e.id!),
          ),
        ),
      );
    for (const row of rows) stored.set(row.id as number, { start: row.start as string, end: row.end as string });
  }
  for (const entry of sendingEither(pair, entries)) {
    const before = entry.id === undefined ? undefined : stored.get(entry.id);
    const first = (entry.values[start.name] as string | undefined) ?? before?.start;
    const last = (entry.values[end.name] as string | undefined) ?? before?.end;
    if (first === undefined || last === undefined) continue;
    if (pair.allowEqual ? last >= first : last > first) continue;
    const { source, detail } = disorder(pair, entry);
    throw ApiError.invalid(source, detail.replace('%s', entry.values[end.name] !== undefined ? first : last));
  }
}

/**
 * `requireOrdered` as one statement of a write sent as one batch: the entries in order, each
 * with the other property as stored where it sent only one, the first out of order refused.
 */
export function orderedCheck(who: Actor, pair: OrderedPair, entries: PairEntry[], within?: SQL): SQL[] {
  const { start, end, table } = pair;
  const checked = sendingEither(pair, entries).map((entry, n) => ({
    n,
    id: entry.id ?? null,
    first: entry.values[start.name] ?? null,
    last: entry.values[end.name] ?? null,
    ...disorder(pair, entry),
  }));
  if (checked.length === 0) return [];
  // in "C" order, byte order, as the Worker compares them; both are fixed-width text
  const first = sql`coalesce(x.first, ${start.column}::text) COLLATE "C"`;
  const last = sql`coalesce(x.last, ${end.column}::text) COLLATE "C"`;
  const ordered = pair.allowEqual ? sql`${last} >= ${first}` : sql`${last} > ${first}`;
  return [
    sql`SELECT desk_refuse(400, y.source, format(y.detail, y.other)) FROM (
    SELECT x.source, x.detail, CASE WHEN x.last IS NOT NULL THEN ${first} ELSE ${last} END AS other
      FROM jsonb_to_recordset(${JSON.stringify(checked)}::jsonb) AS x(n int, id int, first text, last text, source text, detail text)
      LEFT JOIN ${table} ON x.id IS NOT NULL AND ${table.id} = x.id AND ${and(tenantScope(table, who.installationId), within)}
     WHERE ${first} IS NOT NULL AND ${last} IS NOT NULL AND NOT (${ordered})
     ORDER BY x.n LIMIT 1) y`,
  ];
}
