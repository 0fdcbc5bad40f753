import { sql, type Column, type SQL } from 'drizzle-orm';
import type { RecordShape } from './resource';

/**
 * Wire records are built by Postgres as JSON, so a page of records with everything it
 * includes comes back in one statement and needs no per-row work in the Worker.
 */

/** An ISO 8601 UTC string with milliseconds, as every time on the wire. */
export function isoTime(expr: Column | SQL): SQL {
  return sql`to_char(${expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** `{"id": 7, "type": "users"}`, or null. */
export function refJson(idExpr: Column | SQL, type: string): SQL {
  return sql`CASE WHEN ${idExpr} IS NULL THEN NULL ELSE json_build_object('id', ${idExpr}, 'type', ${literal(type)}) END`;
}

function isTimestamp(column: Column): boolean {
  return column.columnType === 'PgTimestamp' || column.columnType === 'PgTimestampString';
}

/** A wire property: a column (times are formatted) or any SQL expression. */
export type WireValue = Column | SQL;

function wireValue(value: WireValue): SQL {
  if (value instanceof Object && 'columnType' in value && isTimestamp(value as Column)) {
    return isoTime(value as Column);
  }
  return sql`${value}`;
}

/** A string literal from our own declarations (never from a request). */
export function literal(text: string): SQL {
  if (!/^[A-Za-z0-9_.]+$/.test(text)) throw new Error(`not a plain name: ${text}`);
  return sql.raw(`'${text}'`);
}

/** `json_build_object` over the given wire properties, in their order. */
export function jsonObject(properties: Record<string, WireValue>): SQL {
  const entries = Object.entries(properties);
  // Postgres takes at most 100 arguments in one call.
  if (entries.length > 50) throw new Error('a record shape has more than 50 properties');
  const pairs = entries.map(([name, value]) => sql`${literal(name)}, ${wireValue(value)}`);
  return sql`json_build_object(${sql.join(pairs, sql`, `)})`;
}

/** The whole wire record of the current row of `shape.table`: id, type, properties, audit set. */
export function recordJson(shape: RecordShape): SQL {
  const t = shape.table;
  return jsonObject({
    id: t.id,
    type: literal(shape.type),
    ...shape.properties,
    state: t.state,
    createdAt: t.createdAt,
    createdBy: refJson(t.createdBy, 'users'),
    updatedAt: t.updatedAt,
    updatedBy: refJson(t.updatedBy, 'users'),
    deletedAt: t.deletedAt,
    deletedBy: refJson(t.deletedBy, 'users'),
  });
}

/** Drops `deletedAt`/`deletedBy` from a live record: they appear only once it is deleted. */
export function finishRecord(record: Record<string, unknown>): Record<string, unknown> {
  if (record.deletedAt === null) {
    delete record.deletedAt;
    delete record.deletedBy;
  }
  return record;
}
