import { and, is, or, sql, SQL, type Column } from 'drizzle-orm';
import { ApiError } from '../http/errors';
import { isCalendarDay } from '../lib/time-values';

/**
 * Compiles the `filter` parameter of lists and bulk operations (the platform's Mongo-like
 * syntax) into a parameterised SQL condition over an allow-list of fields.
 */

export type FilterFieldType = 'integer' | 'string' | 'boolean' | 'datetime' | 'date' | 'enum';

export interface FilterField {
  /** the column or SQL expression the name stands for */
  expr: Column | SQL;
  type: FilterFieldType;
  /** allowed values when type is 'enum' */
  values?: readonly string[];
  /**
   * The expression is a column of related records (a customer's contacts): a condition holds
   * when some related record meets it, `exists(condition)`. Negations hold when none does.
   */
  exists?: (condition: SQL) => SQL;
  /** a string compared ignoring case: `expr` is lowercase, and every value is lowered */
  caseInsensitive?: boolean;
}

export type FilterFields = Readonly<Record<string, FilterField>>;

const MAX_DEPTH = 8;
const MAX_CONDITIONS = 100;
// 100 conditions x 500 values stays below Postgres' limit of 65,535 bind parameters.
const MAX_LIST = 500;

const COMPARISONS = { $lt: '<', $lte: '<=', $gt: '>', $gte: '>=' } as const;
const FIELD_OPERATORS = new Set(['$eq', '$ne', '$in', '$nin', '$contains', ...Object.keys(COMPARISONS)]);

// Ranges are checked here so that Postgres never rejects a value we let through (a 500):
// no year 0000, hours 00-23, offsets within Postgres' +-15:59.
const DATETIME =
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?:T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(Z|[+-](?:0\d|1[0-5]):[0-5]\d)?)?$/;

/**
 * Parses the raw query-string value; a value that is not JSON or not an object is a 400 with
 * source 'filter'. undefined/'' -> undefined.
 */
export function parseFilter(raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined || raw === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw ApiError.invalid('filter', 'is not valid JSON');
  }
  if (!isObject(value)) throw ApiError.invalid('filter', 'must be a JSON object');
  return value;
}

/** Compiles a parsed filter against the allowed fields; returns undefined for an empty filter. */
export function compileFilter(filter: Record<string, unknown> | undefined, fields: FilterFields): SQL | undefined {
  if (filter === undefined) return undefined;
  // Bulk endpoints may take the filter from a JSON body, so the shape is checked again here.
  if (!isObject(filter)) throw ApiError.invalid('filter', 'must be a JSON object');
  if (Object.keys(filter).length === 0) return undefined;

  let conditions = 0;

  const compileObject = (object: Record<string, unknown>, depth: number): SQL =>
    all(
      Object.entries(object).map(([key, value]) =>
        key.startsWith('$') ? compileLogical(key, value, depth) : compileField(key, value),
      ),
    );

  const compileLogical = (op: string, value: unknown, depth: number): SQL => {
    if (op !== '$and' && op !== '$or') {
      const detail = FIELD_OPERATORS.has(op)
        ? `operator "${op}" must be applied to a field`
        : `unknown operator "${op}"`;
      throw ApiError.invalid('filter', detail);
    }
    if (!Array.isArray(value) || value.length === 0) {
      throw ApiError.invalid('filter', `"${op}" must be a non-empty array of filter objects`);
    }
    if (depth >= MAX_DEPTH) throw ApiError.invalid('filter', `is nested more than ${MAX_DEPTH} levels deep`);
    const parts = value.map((item) => {
      // An empty object would match everything, which a bulk operation must not get by accident.
      if (!isObject(item) || Object.keys(item).length === 0) {
        throw ApiError.invalid('filter', `"${op}" must be a non-empty array of non-empty filter objects`);
      }
      return compileObject(item, depth + 1);
    });
    return op === '$and' ? all(parts) : (or(...parts) as SQL);
  };

  const compileField = (name: string, value: unknown): SQL => {
    const source = `filter.${name}`;
    // hasOwn, not `in`: names like "constructor" must not reach the prototype.
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (!field) {
      throw ApiError.invalid(source, `unknown field "${name}"; allowed: ${Object.keys(fields).join(', ')}`);
    }
    // No field value is itself an object, so an object is always a set of operators.
    if (!isObject(value)) return condition(field, '$eq', value, source);
    const entries = Object.entries(value);
    if (entries.length === 0) throw ApiError.invalid(source, 'must not be an empty object');
    return all(entries.map(([op, operand]) => condition(field, op, operand, source)));
  };

  const condition = (field: FilterField, op: string, value: unknown, source: string): SQL => {
    if (++conditions > MAX_CONDITIONS) {
      throw ApiError.invalid('filter', `has more than ${MAX_CONDITIONS} conditions`);
    }
    if (field.exists) return relatedCondition(field, field.exists, op, value, source);
    return ownCondition(field, op, value, source);
  };

  // "No related record is x" is the negation of "some related record is x", not "some is not x".
  const relatedCondition = (
    field: FilterField,
    exists: (condition: SQL) => SQL,
    op: string,
    value: unknown,
    source: string,
  ): SQL => {
    if (value === null && (op === '$eq' || op === '$ne'))
      return op === '$eq' ? sql`not ${exists(sql`true`)}` : exists(sql`true`);
    const some = (positive: string) => exists(sql`(${ownCondition(field, positive, value, source)})`);
    if (op === '$ne') return sql`not ${some('$eq')}`;
    if (op === '$nin') return sql`not ${some('$in')}`;
    return some(op);
  };

  const ownCondition = (field: FilterField, op: string, value: unknown, source: string): SQL => {
    // Parenthesised so an expression's own operators cannot bind to the comparison.
    const expr = is(field.expr, SQL) ? sql`(${field.expr})` : field.expr;
    switch (op) {
      case '$eq':
        return value === null ? sql`${expr} is null` : sql`${expr} = ${param(field, value, source)}`;
      case '$ne':
        // Mongo semantics: a NULL is "not equal" too, which `<>` would drop.
        return value === null ? sql`${expr} is not null` : sql`${expr} is distinct from ${param(field, value, source)}`;
      case '$lt':
      case '$lte':
      case '$gt':
      case '$gte':
        if (field.type === 'boolean') throw ApiError.invalid(source, `"${op}" cannot be used on a boolean`);
        return sql`${expr} ${sql.raw(COMPARISONS[op])} ${param(field, value, source)}`;
      case '$in':
      case '$nin': {
        if (!Array.isArray(value) || value.length === 0 || value.length > MAX_LIST) {
          throw ApiError.invalid(source, `"${op}" must be a non-empty array of at most ${MAX_LIST} values`);
        }
        const list = sql.join(
          value.map((item) => param(field, item, source)),
          sql`, `,
        );
        // As with $ne, a NULL counts as "not in".
        return op === '$in' ? sql`${expr} in (${list})` : sql`(${expr} is null or ${expr} not in (${list}))`;
      }
      case '$contains': {
        if (field.type !== 'string') throw ApiError.invalid(source, `"$contains" can only be used on a string`);
        const pattern = `%${stringValue(value, source).replace(/[\\%_]/g, '\\$&')}%`;
        return sql`${expr} ilike ${pattern} escape '\\'`;
      }
      default:
        throw ApiError.invalid(
          source,
          op === '$and' || op === '$or'
            ? `"${op}" must be used at the top of a filter object, not on a field`
            : `unknown operator "${op}"`,
        );
    }
  };

  return compileObject(filter, 0);
}

/** The value as a bind parameter, checked against the field's type. */
function param(field: FilterField, value: unknown, source: string): SQL {
  if (value === null) throw ApiError.invalid(source, 'null can only be used with "$eq" and "$ne"');
  switch (field.type) {
    case 'integer': {
      const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw ApiError.invalid(source, 'must be an integer');
      // bigint, so a value beyond an int4 column's range matches nothing instead of raising.
      return sql`${n}::bigint`;
    }
    case 'string':
      return field.caseInsensitive ? sql`lower(${stringValue(value, source)})` : sql`${stringValue(value, source)}`;
    case 'boolean':
      if (typeof value !== 'boolean') throw ApiError.invalid(source, 'must be true or false');
      return sql`${value}`;
    case 'datetime':
      return sql`${datetimeValue(value, source)}::timestamptz`;
    case 'date':
      return sql`${dateValue(value, source)}::date`;
    case 'enum': {
      const allowed = field.values ?? [];
      if (typeof value !== 'string' || !allowed.includes(value)) {
        throw ApiError.invalid(source, `must be one of: ${allowed.join(', ')}`);
      }
      return sql`${value}`;
    }
  }
}

function stringValue(value: unknown, source: string): string {
  if (typeof value !== 'string') throw ApiError.invalid(source, 'must be a string');
  // Postgres text cannot hold NUL; it would fail the query instead of matching nothing.
  if (value.includes('\0')) throw ApiError.invalid(source, 'must not contain NUL characters');
  return value;
}

/** An ISO 8601 date or date-time; no offset means UTC, made explicit so the session time zone never matters. */
function datetimeValue(value: unknown, source: string): string {
  const match = typeof value === 'string' ? DATETIME.exec(value) : null;
  const offset = match?.[4];
  if (!match || !isCalendarDay(match[0].slice(0, 10))) {
    throw ApiError.invalid(source, 'must be an ISO 8601 date or date-time, like 2024-05-01 or 2024-05-01T12:00:00Z');
  }
  const text = match[0];
  if (offset) return text;
  return text.includes('T') ? `${text}Z` : `${text}T00:00:00Z`;
}

/** A calendar date `YYYY-MM-DD`, as date columns (a holiday's days) hold them. */
function dateValue(value: unknown, source: string): string {
  if (typeof value !== 'string' || !isCalendarDay(value))
    throw ApiError.invalid(source, 'must be a date like 2024-05-01');
  return value;
}

function all(parts: SQL[]): SQL {
  return and(...parts) as SQL;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
