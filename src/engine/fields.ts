import type { Column, SQL } from 'drizzle-orm';
import type { FilterField, FilterFieldType, FilterFields } from './filter';
import type { Actor } from '../auth/principal';
import { computedDependsOnCaller, computedExpr } from './resource';
import type { ResourceDeclaration } from './types';

function typeOf(column: Column): FilterFieldType {
  if (column.enumValues?.length) return 'enum';
  if (column.columnType === 'PgDate' || column.columnType === 'PgDateString') return 'date';
  // a timestamp read as text (`mode: 'string'`) is still a time: compared as one, never searched as text
  if (column.columnType === 'PgTimestamp' || column.columnType === 'PgTimestampString') return 'datetime';
  switch (column.dataType) {
    case 'number':
      return 'integer';
    case 'boolean':
      return 'boolean';
    case 'date':
      return 'datetime';
    default:
      return 'string';
  }
}

function columnField(column: Column): FilterField {
  const type = typeOf(column);
  return type === 'enum' ? { expr: column, type, values: column.enumValues } : { expr: column, type };
}

/** Every name a resource's records answer to in SQL: the audit set, its fields, its computed ones. */
function namedFields(resource: ResourceDeclaration, who: Actor): Record<string, FilterField> {
  const t = resource.table;
  const named: Record<string, FilterField> = {};
  const audit = {
    id: t.id,
    state: t.state,
    createdAt: t.createdAt,
    createdBy: t.createdBy,
    updatedAt: t.updatedAt,
    updatedBy: t.updatedBy,
    deletedAt: t.deletedAt,
    deletedBy: t.deletedBy,
  };
  for (const [name, column] of Object.entries(audit)) named[name] = columnField(column);
  for (const [name, field] of Object.entries(resource.fields)) named[name] = columnField(field.column);
  for (const [name, field] of Object.entries(resource.computed ?? {}))
    named[name] = { expr: computedExpr(field, who), type: field.type };
  for (const [name, field] of Object.entries(resource.relatedFilter ?? {})) named[name] = field;
  return named;
}

const filterFieldsMemo = new WeakMap<ResourceDeclaration, FilterFields>();

/**
 * The fields `filter` may name: exactly the declaration's list. Built once per resource, unless
 * a computed field depends on the caller: then for each request that filters or orders.
 */
export function filterFieldsOf(resource: ResourceDeclaration, who: Actor): FilterFields {
  const known = filterFieldsMemo.get(resource);
  if (known) return known;
  const named = namedFields(resource, who);
  const fields: Record<string, FilterField> = {};
  for (const name of resource.filter) {
    const field = named[name];
    if (!field) throw new Error(`${resource.type}: filter name ${name} is not a field`);
    fields[name] = field;
  }
  if (!computedDependsOnCaller(resource)) filterFieldsMemo.set(resource, fields);
  return fields;
}

/**
 * The names `orderBy` accepts: `filter`'s but those over related records (a ticket's `tags.id`:
 * which of its tags would it sort by?), and the extra ones. A platform name for a column of the
 * record itself (a ticket's `statuses.id`, a time log's `tickets_id`) sorts as that column.
 */
export function orderNamesOf(resource: ResourceDeclaration): string[] {
  const related = resource.relatedFilter ?? {};
  return [...resource.filter.filter((name) => !related[name]?.exists), ...Object.keys(resource.orderByExtra ?? {})];
}

/** The sort expression of a name `orderBy` accepts: an extra one's own, or that of a `filter` name. */
export function orderExprOf(resource: ResourceDeclaration, who: Actor, name: string): Column | SQL {
  if (resource.orderByExtra && Object.hasOwn(resource.orderByExtra, name)) return resource.orderByExtra[name]!;
  const fields = filterFieldsOf(resource, who);
  if (!Object.hasOwn(fields, name) || fields[name]!.exists)
    throw new Error(`${resource.type}: orderBy name ${name} is not a field`);
  return fields[name]!.expr;
}

/** The string properties a filter's example names first, as a reader searches for a record. */
const EXAMPLE_NAMES = ['name', 'subject', 'title', 'email', 'label', 'url'];

/**
 * A filter this resource accepts, for the reference's example: `$contains` over a name-like
 * string, else `$eq` over an enum's first value, else a range over ids (or the first name's
 * type). Valid by construction: the names and types are the declaration's own.
 */
export function filterExample(resource: ResourceDeclaration): string | undefined {
  const typed = (name: string): FilterField | undefined => {
    const field =
      resource.fields[name]?.column ?? (resource.table as unknown as Record<string, Column | undefined>)[name];
    if (field && typeof field === 'object' && 'columnType' in field) return columnField(field);
    return (
      resource.relatedFilter?.[name] ??
      (resource.computed?.[name] ? { expr: undefined as never, type: resource.computed[name]!.type } : undefined)
    );
  };
  const names = resource.filter;
  const text = [...EXAMPLE_NAMES, ...names].find(
    (name) => names.includes(name) && typed(name)?.type === 'string' && !typed(name)?.exists,
  );
  if (text) return JSON.stringify({ [text]: { $contains: 'ac' } });
  const choice = names.find((name) => typed(name)?.type === 'enum' && typed(name)?.values?.length);
  if (choice) return JSON.stringify({ [choice]: { $eq: typed(choice)!.values![0] } });
  const first = names.includes('id') ? 'id' : names.find((name) => typed(name));
  if (!first) return undefined;
  const sample: Record<FilterFieldType, unknown> = {
    integer: { $gte: 1 },
    datetime: { $gte: '2026-01-01T00:00:00Z' },
    date: { $gte: '2026-01-01' },
    boolean: { $eq: true },
    string: { $ne: '' },
    enum: {},
  };
  return JSON.stringify({ [first]: sample[typed(first)!.type] });
}
