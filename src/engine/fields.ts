import type { Column, SQL } from 'drizzle-orm';
import type { FilterField, FilterFieldType, FilterFields } from './filter';
import type { Actor } from '../auth/principal';
import { computedExpr } from './resource';
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
  return named;
}

/** The fields `filter` may name: exactly the declaration's list. */
export function filterFieldsOf(resource: ResourceDeclaration, who: Actor): FilterFields {
  const named = namedFields(resource, who);
  const fields: Record<string, FilterField> = {};
  for (const name of resource.filter) {
    const field = named[name];
    if (!field) throw new Error(`${resource.type}: filter name ${name} is not a field`);
    fields[name] = field;
  }
  return fields;
}

/** The sort expression of each name `orderBy` accepts: `filter`'s names and the extra ones. */
export function orderFieldsOf(resource: ResourceDeclaration, who: Actor): Record<string, Column | SQL> {
  const order: Record<string, Column | SQL> = {};
  for (const [name, field] of Object.entries(filterFieldsOf(resource, who))) order[name] = field.expr;
  return { ...order, ...resource.orderByExtra };
}
