import { and, inArray, type SQL } from 'drizzle-orm';
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

/**
 * Answers 400 naming the property at fault when an entry's end would not come after its start
 * (both are fixed-width text, so text order is time order). An entry that changes only one of
 * them is checked against the other as stored; ids not found are left to the write to refuse.
 */
export async function requireOrdered(tx: Transaction, who: Actor, pair: OrderedPair, entries: PairEntry[], within?: SQL): Promise<void> {
  const { start, end } = pair;
  const partial = entries.filter((e) => e.id !== undefined && (e.values[start.name] === undefined) !== (e.values[end.name] === undefined));
  const stored = new Map<number, { start: string; end: string }>();
  if (partial.length) {
    const rows = await tx
      .select({ id: pair.table.id, start: start.column, end: end.column })
      .from(pair.table as PgTable)
      .where(and(tenantScope(pair.table, who.installationId), within, inArray(pair.table.id, partial.map((e) => e.id!))));
    for (const row of rows) stored.set(row.id as number, { start: row.start as string, end: row.end as string });
  }
  for (const entry of entries) {
    const sentStart = entry.values[start.name] as string | undefined;
    const sentEnd = entry.values[end.name] as string | undefined;
    if (sentStart === undefined && sentEnd === undefined) continue;
    const before = entry.id === undefined ? undefined : stored.get(entry.id);
    const first = sentStart ?? before?.start;
    const last = sentEnd ?? before?.end;
    if (first === undefined || last === undefined) continue;
    if (pair.allowEqual ? last >= first : last > first) continue;
    const culprit = sentEnd !== undefined ? end.name : start.name;
    const other = culprit === end.name ? `${start.name} (${first})` : `${end.name} (${last})`;
    const relation = culprit === end.name ? (pair.allowEqual ? 'not be before' : 'be after') : pair.allowEqual ? 'not be after' : 'be before';
    throw ApiError.invalid(`${entry.source}.${culprit}`, `must ${relation} ${other}`);
  }
}
