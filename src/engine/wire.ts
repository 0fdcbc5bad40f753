import { is, SQL, type Column } from 'drizzle-orm';
import { z } from 'zod';

/**
 * What a record's property reads as. A column's is known from the column (its type and whether
 * it may be null); an SQL expression names its own. The OpenAPI document's record schemas are
 * made from these, so they say what Postgres actually answers.
 */
export interface TypedSql {
  readonly sql: SQL;
  readonly schema: z.ZodType;
}

/** A wire property: a column, or an SQL expression with the schema of its value. */
export type WireValue = Column | TypedSql;

export function typed(expression: SQL, schema: z.ZodType): TypedSql {
  return { sql: expression, schema };
}

export function isTypedSql(value: unknown): value is TypedSql {
  return (
    typeof value === 'object' &&
    value !== null &&
    'schema' in value &&
    'sql' in value &&
    is((value as TypedSql).sql, SQL)
  );
}

/** A reference as it reads: `{"id": 7, "type": "users"}`. */
export function refSchema(type: string) {
  return z.object({ id: z.number().int(), type: z.literal(type) }).meta({ description: `a reference to ${type}` });
}

/** A time as every time reads: ISO 8601 in UTC with milliseconds. */
export const timeSchema = z.iso.datetime().meta({ description: 'ISO 8601, UTC' });

export function isTimestamp(column: Column): boolean {
  return column.columnType === 'PgTimestamp' || column.columnType === 'PgTimestampString';
}

/** What a column reads as in a record built by `json_build_object`. */
function columnSchema(column: Column): z.ZodType {
  const base = (): z.ZodType => {
    if (column.enumValues?.length) return z.enum(column.enumValues as [string, ...string[]]);
    switch (column.columnType) {
      case 'PgInteger':
      case 'PgSmallInt':
      case 'PgBigInt53':
      case 'PgSerial':
        return z.number().int();
      case 'PgReal':
      case 'PgDoublePrecision':
      case 'PgNumeric':
        return z.number();
      case 'PgBoolean':
        return z.boolean();
      case 'PgTimestamp':
      case 'PgTimestampString':
        return timeSchema;
      case 'PgDate':
      case 'PgDateString':
        return z.iso.date();
      case 'PgJsonb':
      case 'PgJson':
        return z.unknown();
      case 'PgText':
      case 'PgVarchar':
        return z.string();
      case 'PgArray': {
        // `text[]` (a ticket's cc): the elements as their own column reads
        const element = (column as unknown as { baseColumn: Column }).baseColumn;
        return z.array(element.columnType === 'PgInteger' ? z.number().int() : z.string());
      }
      default:
        throw new Error(`no wire schema for column ${column.name} (${column.columnType})`);
    }
  };
  const schema = base();
  return column.notNull || column.columnType === 'PgJsonb' || column.columnType === 'PgJson'
    ? schema
    : schema.nullable();
}

export function wireSchema(value: WireValue): z.ZodType {
  return isTypedSql(value) ? value.schema : columnSchema(value);
}
