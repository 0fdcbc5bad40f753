import { getTableName, is, SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Actor } from '../auth/principal';
import type { Queryable } from '../db/client';
import { eventsOn, insertEventsFrom, withEvents } from '../events/record-events';
import { createdValues, deletedValues, updatedValues } from './columns';
import { jsonObject } from './record-json';
import type { AuditedTable } from './types';
import type { WireValue } from './wire';

/**
 * The engine's writes, each one statement that also writes the events of what it changed (the
 * transactional outbox): a create, an update with the changed properties before and after, a
 * soft delete. Run on a transaction or over HTTP, they change records and events together or not at all.
 */

import type { Writer } from './types';
export type { Writer } from './types';

/** The rows of `table` matching `where`: the records the statement acts on. */
interface Target {
  table: AuditedTable;
  type: string;
  where: SQL;
}

/** What an event records beside its record: values, or SQL making the jsonb (a new parent's id, recalled). */
export type EventData = Record<string, unknown> | SQL;

/** The events' `data` column's value. */
function eventData(data: EventData | undefined): SQL | undefined {
  if (data === undefined || is(data, SQL)) return data;
  return sql`${JSON.stringify(data)}::jsonb`;
}

/** Inserts one record per row of values; `data` goes into each `created` event. Answers the new ids, in order. */
export async function createRecords(
  db: Queryable & Writer,
  who: Actor,
  target: Omit<Target, 'where'>,
  rows: Record<string, unknown>[],
  data?: Record<string, unknown>,
): Promise<number[]> {
  if (rows.length === 0) return [];
  const { rows: made } = await db.execute(createStatement(db, who, target, rows, data));
  return made.map((row) => Number(row.id));
}

/**
 * `createRecords`'s statement, to run or to send in a batch (values may be SQL, such as a new
 * parent's id recalled from an earlier statement); answers `select` over the new rows (`changed`).
 */
/**
 * A new record's id taken from its table's sequence before its batch, where the Worker needs it
 * first (a key or a seal names it): `createStatement` inserts a row carrying it as its own.
 */
export async function reserveId(read: Queryable, table: PgTable): Promise<number> {
  const { rows } = await read.execute(
    sql`SELECT nextval(pg_get_serial_sequence(${getTableName(table)}, 'id'))::int AS id`,
  );
  return Number(rows[0]!.id);
}

export function createStatement(
  db: Writer,
  who: Actor,
  target: Omit<Target, 'where'>,
  rows: Record<string, unknown>[],
  data?: EventData,
  select?: SQL,
): SQL {
  const values = rows.map((row) => ({ ...row, ...createdValues(who) }));
  // an id reserved before the batch (taken from the table's sequence) is the row's own
  const insert = rows.some((row) => row.id !== undefined)
    ? db.insert(target.table as PgTable).overridingSystemValue()
    : db.insert(target.table as PgTable);
  const statement = insert
    .values(values as never)
    .returning({ id: target.table.id })
    .getSQL();
  return withEvents(statement, who, target.type, 'created', eventData(data), undefined, select);
}

/**
 * Sets `values` on the records of the target. Each record whose `properties` (the wire
 * properties the change may touch) now read differently gets one `updated` event holding them
 * before and after. Answers the changed ids.
 */
export async function updateRecords(
  db: Queryable & Writer,
  who: Actor,
  target: Target,
  values: Record<string, unknown>,
  properties: Record<string, WireValue>,
): Promise<number[]> {
  const { rows } = await db.execute(updateStatement(db, who, target, values, properties));
  return rows.map((row) => Number(row.id));
}

/**
 * `updateRecords`'s statement, to run or to send in a batch: answers the changed ids, or what
 * `select` (a whole SELECT over the changed rows, `changed`) answers.
 */
export function updateStatement(
  db: Writer,
  who: Actor,
  target: Target,
  values: Record<string, unknown>,
  properties: Record<string, WireValue>,
  select: SQL = sql`SELECT id FROM changed`,
): SQL {
  const t = target.table;
  // A change may set its own audit values (a repeat that changes nothing keeps updatedAt).
  const set = { ...updatedValues(who), ...values };
  const watched = Object.keys(properties).length > 0 && eventsOn();
  if (!watched)
    return sql`WITH changed AS (${db
      .update(t as PgTable)
      .set(set as never)
      .where(target.where)
      .returning({ id: t.id })
      .getSQL()}) ${select}`;
  const state = jsonObject(properties);
  const update = db
    .update(t as PgTable)
    .set(set as never)
    .where(sql`${t.id} IN (SELECT id FROM before)`)
    .returning({ id: t.id, after: sql`(${state})::jsonb` })
    .getSQL();
  const differences = sql`(SELECT coalesce(jsonb_object_agg(a.key, jsonb_build_object('before', b.value, 'after', a.value)), '{}'::jsonb)
    FROM jsonb_each(changed.after) a JOIN jsonb_each(before.state) b ON b.key = a.key WHERE a.value IS DISTINCT FROM b.value)`;
  return sql`
    WITH before AS (SELECT ${t.id} AS id, (${state})::jsonb AS state FROM ${t} WHERE ${target.where} ORDER BY ${t.id} FOR UPDATE),
    changed(id, after) AS (${update}),
    diffs AS (SELECT changed.id, ${differences} AS changes FROM changed JOIN before ON before.id = changed.id),
    logged AS (${insertEventsFrom(sql`diffs`, who, target.type, 'updated', sql`r.changes`, sql`r.changes <> '{}'::jsonb`)})
    ${select}`;
}

/** Soft-deletes the live records of the target: each gets a `deleted` event. Answers their ids. */
export async function deleteRecords(
  db: Queryable & Writer,
  who: Actor,
  target: Target,
  data?: Record<string, unknown>,
): Promise<number[]> {
  const { rows } = await db.execute(deleteStatement(db, who, target, data));
  return rows.map((row) => Number(row.id));
}

/** `deleteRecords`'s statement, to run or to send in a batch. */
export function deleteStatement(db: Writer, who: Actor, target: Target, data?: EventData): SQL {
  const statement = db
    .update(target.table as PgTable)
    .set(deletedValues(who) as never)
    .where(target.where)
    .returning({ id: target.table.id })
    .getSQL();
  return withEvents(statement, who, target.type, 'deleted', eventData(data));
}
