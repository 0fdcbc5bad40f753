import { sql, type SQL } from 'drizzle-orm';
import type { PgDatabase, PgTable } from 'drizzle-orm/pg-core';
import type { Actor } from '../auth/principal';
import type { Queryable } from '../db/client';
import { changeWithEvents, eventsOn, insertEventsFrom } from '../events/record-events';
import { createdValues, deletedValues, updatedValues } from './columns';
import { jsonObject } from './record-json';
import type { AuditedTable } from './types';
import type { WireValue } from './wire';

/**
 * The engine's writes, each one statement that also writes the events of what it changed (the
 * transactional outbox): a create, an update with the changed properties before and after, a
 * soft delete. Run on a transaction or over HTTP, they change records and events together or not at all.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the HTTP client and a transaction are both a PgDatabase
type Writer = PgDatabase<any, any, any>;

/** The rows of `table` matching `where`: the records the statement acts on. */
interface Target {
  table: AuditedTable;
  type: string;
  where: SQL;
}

/** What an event records beside its record, as the events' `data` column takes it. */
function eventData(data: Record<string, unknown> | undefined): SQL | undefined {
  return data ? sql`${JSON.stringify(data)}::jsonb` : undefined;
}

/** Inserts one record per row of values; `data` goes into each `created` event. Answers the new ids, in order. */
export async function createRecords(db: Queryable & Writer, who: Actor, target: Omit<Target, 'where'>, rows: Record<string, unknown>[], data?: Record<string, unknown>): Promise<number[]> {
  if (rows.length === 0) return [];
  const values = rows.map((row) => ({ ...row, ...createdValues(who) }));
  const statement = db.insert(target.table as PgTable).values(values as never).returning({ id: target.table.id }).getSQL();
  return changeWithEvents(db, statement, who, target.type, 'created', eventData(data));
}

/**
 * Sets `values` on the records of the target. Each record whose `properties` (the wire
 * properties the change may touch) now read differently gets one `updated` event holding them
 * before and after. Answers the changed ids.
 */
export async function updateRecords(db: Queryable & Writer, who: Actor, target: Target, values: Record<string, unknown>, properties: Record<string, WireValue>): Promise<number[]> {
  const t = target.table;
  // A change may set its own audit values (a repeat that changes nothing keeps updatedAt).
  const set = { ...updatedValues(who), ...values };
  const watched = Object.keys(properties).length > 0 && eventsOn();
  if (!watched) {
    const rows = await db.update(t as PgTable).set(set as never).where(target.where).returning({ id: t.id });
    return rows.map((row) => Number(row.id));
  }
  const state = jsonObject(properties);
  const update = db
    .update(t as PgTable)
    .set(set as never)
    .where(sql`${t.id} IN (SELECT id FROM before)`)
    .returning({ id: t.id, after: sql`(${state})::jsonb` })
    .getSQL();
  const differences = sql`(SELECT coalesce(jsonb_object_agg(a.key, jsonb_build_object('before', b.value, 'after', a.value)), '{}'::jsonb)
    FROM jsonb_each(changed.after) a JOIN jsonb_each(before.state) b ON b.key = a.key WHERE a.value IS DISTINCT FROM b.value)`;
  const { rows } = await db.execute(sql`
    WITH before AS (SELECT ${t.id} AS id, (${state})::jsonb AS state FROM ${t} WHERE ${target.where} ORDER BY ${t.id} FOR UPDATE),
    changed(id, after) AS (${update}),
    diffs AS (SELECT changed.id, ${differences} AS changes FROM changed JOIN before ON before.id = changed.id),
    logged AS (${insertEventsFrom(sql`diffs`, who, target.type, 'updated', sql`r.changes`, sql`r.changes <> '{}'::jsonb`)})
    SELECT id FROM changed`);
  return rows.map((row) => Number(row.id));
}

/** Soft-deletes the live records of the target: each gets a `deleted` event. Answers their ids. */
export function deleteRecords(db: Queryable & Writer, who: Actor, target: Target, data?: Record<string, unknown>): Promise<number[]> {
  const statement = db.update(target.table as PgTable).set(deletedValues(who) as never).where(target.where).returning({ id: target.table.id }).getSQL();
  return changeWithEvents(db, statement, who, target.type, 'deleted', eventData(data));
}
