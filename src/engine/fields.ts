import type { Column, SQL } from 'drizzle-orm';
import type { FilterField, FilterFieldType, FilterFields } from './filter';
import type { Actor } from '../auth/principal';
import { computedDependsOnCaller, computedExpr } from './resource';
import type { ResourceDeclaration } from './types';

function typeOf(column: Column): FilterFieldType {
  if (column.enumValues?.length) return 'enum';
  if (column.columnType === 'PgDate' || column.columnType === 'PgDateString') return 'date';
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
  const audit = { id: t.id, state: t.state, createdAt: t.createdAt, createdBy: t.createdBy, updatedAt: t.updatedAt, updatedBy: t.updatedBy, deletedAt: t.deletedAt, deletedBy: t.deletedBy };
  for (const [name, column] of Object.entries(audit)) named[name] = columnField(column);
  for (const [name, field] of Object.entries(resource.fields)) named[name] = columnField(field.column);
  for (const [name, field] of Object.entries(resource.computed ?? {})) named[name] = { expr: computedExpr(field, who), type: field.type };
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
  if (!Object.hasOwn(fields, name) || fields[name]!.exists) throw new Error(`${resource.type}: orderBy name ${name} is not a field`);
  return fields[name]!.expr;
}
