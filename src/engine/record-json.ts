import { sql, type Column, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { FilterFieldType } from './filter';
import type { ComputedField, RecordShape, RecordValues } from './types';
import {
  isTimestamp,
  isTypedSql,
  refSchema,
  timeSchema,
  typed,
  wireSchema,
  type TypedSql,
  type WireValue,
} from './wire';

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

/** A property that references another record: `{"id", "type"}`, or null when `nullable`. */
export function refProperty(idExpr: Column | SQL, type: string, nullable = true): TypedSql {
  return typed(refJson(idExpr, type), nullable ? refSchema(type).nullable() : refSchema(type));
}

/** A time property from an expression. */
export function timeProperty(expr: Column | SQL, nullable = true): TypedSql {
  return typed(isoTime(expr), nullable ? timeSchema.nullable() : timeSchema);
}

function wireSql(value: WireValue | SQL): SQL {
  if (isTypedSql(value)) return value.sql;
  if (value instanceof Object && 'columnType' in value && isTimestamp(value as Column)) return isoTime(value as Column);
  return sql`${value}`;
}

/** A string literal from our own declarations (never from a request). */
export function literal(text: string): SQL {
  if (!/^[A-Za-z0-9_.]+$/.test(text)) throw new Error(`not a plain name: ${text}`);
  return sql.raw(`'${text}'`);
}

/** `json_build_object` over the given wire properties, in their order. */
export function jsonObject(properties: Record<string, WireValue | SQL>): SQL {
  const entries = Object.entries(properties);
  // Postgres takes at most 100 arguments in one call.
  if (entries.length > 50) throw new Error('a record shape has more than 50 properties');
  const pairs = entries.map(([name, value]) => sql`${literal(name)}, ${wireSql(value)}`);
  return sql`json_build_object(${sql.join(pairs, sql`, `)})`;
}

/** The audit set as it reads, after the record's own properties. */
export function auditProperties(t: RecordShape['table']): Record<string, WireValue> {
  return {
    state: t.state,
    createdAt: t.createdAt,
    createdBy: refProperty(t.createdBy, 'users'),
    updatedAt: t.updatedAt,
    updatedBy: refProperty(t.updatedBy, 'users'),
    deletedAt: t.deletedAt,
    deletedBy: refProperty(t.deletedBy, 'users'),
  };
}

/**
 * The whole wire record of the current row of `shape.table`: id, type, properties, audit set.
 * `type` is the type name unless the record owns a `type` property (a phone's kind).
 */
export function recordJson(shape: RecordShape): SQL {
  const t = shape.table;
  const type: Record<string, WireValue> =
    'type' in shape.properties ? {} : { type: typed(literal(shape.type), z.literal(shape.type)) };
  return jsonObject({ id: t.id, ...type, ...shape.properties, ...auditProperties(t) });
}

/** Drops `deletedAt`/`deletedBy` from a live record: they appear only once it is deleted. */
export function finishRecord(record: Record<string, unknown>): Record<string, unknown> {
  if (record.deletedAt === null) {
    delete record.deletedAt;
    delete record.deletedBy;
  }
  return record;
}

/** A read-only property of a resource made from a wire value (a column, or typed SQL): readable, filterable as `type`. */
export function computedFrom(value: WireValue, type: FilterFieldType): ComputedField {
  return { expr: wireSql(value), type, schema: wireSchema(value) };
}

/**
 * How one wire property of a record read by position is made (`decode` dispatches on it; kept in
 * plain arrays, not one object a property, so that its loop stays fast in V8).
 */
const VALUE = 0; // the array's value as it is
const TIME = 1; // a time column: the UTC time as JSON writes a `timestamp` (`wireTime`)
const REFERENCE = 2; // a reference: the bare id (or null)
const CONSTANT = 3; // the type name: no value in the array
const TIME_UNLESS_LIVE = 4; // `deletedAt`: left out while it is null, as `finishRecord` does
const REFERENCE_UNLESS_LIVE = 5; // `deletedBy`: likewise

const AUDIT_REFERENCES = new Set(['createdBy', 'updatedBy', 'deletedBy']);

function isTimeWithZone(value: unknown): value is Column {
  return (
    value instanceof Object &&
    'columnType' in value &&
    isTimestamp(value as Column) &&
    (value as { withTimezone?: boolean }).withTimezone === true
  );
}

/**
 * The parts as one flat string: `a + b` of 13 characters or more is a rope that `JSON.stringify`
 * must flatten, which made it take twice as long over a page's times (docs/benchmarks.md).
 */
function flat(parts: string[]): string {
  return parts.join('');
}

/**
 * `isoTime`'s text from what `json_build_array(t AT TIME ZONE 'UTC')` writes: JSON writes a
 * `timestamp` as ISO 8601 without trailing zeros in the fraction (`2026-11-23T17:12:20.1`, or no
 * fraction at all), ` BC` after a year before 1, `infinity` for an infinite time (which
 * `to_char` reads as null). `to_char`'s `MS` cuts the fraction to milliseconds, as this does.
 */
function wireTime(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  // The usual case, `YYYY-MM-DDTHH:MI:SS.mmm`: only the zone is missing.
  if (value.length === 23 && value.charCodeAt(19) === 46 /* . */) return flat([value, 'Z']);
  if (value === 'infinity' || value === '-infinity') return null;
  const text = value.endsWith(' BC') ? value.slice(0, -3) : value;
  const dot = text.indexOf('.', text.indexOf('T'));
  if (dot < 0) return flat([text, '.000Z']);
  const fraction = text.slice(dot + 1);
  return flat([text.slice(0, dot + 1), fraction.length >= 3 ? fraction.slice(0, 3) : fraction.padEnd(3, '0'), 'Z']);
}

type Clone = (template: Record<string, unknown>) => Record<string, unknown>;

/**
 * Thirty-two places in the code that copy a record's template. V8 copies `{ ...template }` fast
 * only where it has seen at most four layouts of object (an inline cache per place in the code,
 * shared by every closure made there): one place for every resource's records took its slow
 * generic path, 0.24 µs a record, a third of a list's decoding (docs/benchmarks.md). A template's
 * layout (its keys, in order) picks its place by a hash, the same whenever it is made again, so
 * the layouts a service decodes spread over the places. The copies are the same code on purpose.
 */
const CLONES: readonly Clone[] = [
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
  (t) => ({ ...t }),
];
/** The place that copies templates of this one's layout: FNV-1a of its keys. */
function cloneFor(template: Record<string, unknown>): Clone {
  const layout = Object.keys(template).join(',');
  let hash = 0x811c9dc5;
  for (let i = 0; i < layout.length; i++) hash = Math.imul(hash ^ layout.charCodeAt(i), 0x01000193);
  return CLONES[(hash >>> 0) % CLONES.length]!;
}

/**
 * A record as the values of a `json_build_array` (`RecordValues`, in `types.ts`). `slots` are the
 * properties set on the record after it is decoded (its includes' references, `assemble.ts`): they
 * start in its template, after its own, so that setting them adds no property. A V8 object given
 * more than a dozen properties by computed name after it was made falls back to dictionary mode,
 * and `JSON.stringify` of a page of those took over twice as long (docs/benchmarks.md).
 */
export function recordValues(shape: RecordShape, slots: readonly string[] = []): RecordValues {
  const t = shape.table;
  const audit = auditProperties(t);
  const typeName = 'type' in shape.properties ? undefined : shape.type;
  // The same object `recordJson` builds its pairs from, so the keys fall in the same order.
  const merged: Record<string, WireValue | SQL> = {
    id: t.id,
    ...(typeName ? { type: sql`NULL` } : {}),
    ...shape.properties,
    ...audit,
  };
  const names: string[] = [];
  const kinds: number[] = [];
  /** the type name of a CONSTANT, the referenced type of a REFERENCE */
  const given: (string | undefined)[] = [];
  const values: SQL[] = [];
  let deletedAt = -1;
  for (const [name, value] of Object.entries(merged)) {
    names.push(name);
    if (name === 'type' && typeName) {
      kinds.push(CONSTANT);
      given.push(typeName);
      continue;
    }
    const unlessLive = name === 'deletedAt' || name === 'deletedBy';
    if (name === 'deletedAt') deletedAt = values.length;
    if (AUDIT_REFERENCES.has(name) && value === audit[name]) {
      kinds.push(unlessLive ? REFERENCE_UNLESS_LIVE : REFERENCE);
      given.push('users');
      values.push(sql`${t[name as 'createdBy' | 'updatedBy' | 'deletedBy']}`);
      continue;
    }
    given.push(undefined);
    if (isTimeWithZone(value)) {
      kinds.push(unlessLive ? TIME_UNLESS_LIVE : TIME);
      values.push(sql`(${value} AT TIME ZONE 'UTC')`);
    } else {
      kinds.push(VALUE);
      values.push(wireSql(value));
    }
  }
  if (deletedAt < 0) throw new Error(`${shape.type}: a record without deletedAt`);
  const deletedAtIsTime = kinds[names.indexOf('deletedAt')] === TIME_UNLESS_LIVE;
  // Every record starts as a copy of one of these (its keys already in order, the type name set),
  // which V8 makes faster than adding the keys one by one.
  // JSON.parse makes an object whose properties all sit in the object itself, and so its copies.
  const template = (live: boolean) => {
    const record: Record<string, unknown> = {};
    names.forEach((name, i) => {
      if (live && (kinds[i] === TIME_UNLESS_LIVE || kinds[i] === REFERENCE_UNLESS_LIVE)) return;
      record[name] = kinds[i] === CONSTANT ? given[i] : null;
    });
    for (const slot of slots) if (!(slot in record)) record[slot] = null;
    return JSON.parse(JSON.stringify(record)) as Record<string, unknown>;
  };
  const liveTemplate = template(true);
  const deletedTemplate = template(false);
  const count = names.length;
  const cloneLive = cloneFor(liveTemplate);
  const cloneDeleted = cloneFor(deletedTemplate);
  return {
    values: sql.join(values, sql`, `),
    count: values.length,
    decode(row, offset) {
      const deleted = row[offset + deletedAt];
      const live = deleted === null || (deletedAtIsTime && wireTime(deleted) === null);
      const record: Record<string, unknown> = live ? cloneLive(liveTemplate) : cloneDeleted(deletedTemplate);
      let at = offset;
      for (let i = 0; i < count; i++) {
        const kind = kinds[i];
        if (kind === CONSTANT) continue;
        const value = row[at++];
        if (value === null) continue; // the template's value
        if (kind === VALUE) record[names[i]!] = value;
        else if (kind === TIME) record[names[i]!] = wireTime(value);
        else if (kind === REFERENCE) record[names[i]!] = { id: value, type: given[i] };
        else if (live) continue;
        else if (kind === TIME_UNLESS_LIVE) record[names[i]!] = wireTime(value);
        else record[names[i]!] = { id: value, type: given[i] };
      }
      return record;
    },
  };
}
