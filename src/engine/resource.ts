import { sql, type SQL } from 'drizzle-orm';
import type { Actor } from '../auth/principal';
import type { ComputedField, RecordShape, ResourceDeclaration, WritableField } from './types';
import type { WireValue } from './wire';

/** The audit set of the spec: names every audited record answers to in `filter` and `orderBy`. */
export const AUDIT_SET = ['createdAt', 'createdBy', 'deletedAt', 'deletedBy', 'updatedAt', 'updatedBy', 'state', 'id'] as const;

export function defineResource(declaration: ResourceDeclaration): ResourceDeclaration {
  return declaration;
}

/** A computed field's expression for this caller. */
export function computedExpr(field: ComputedField, who: Actor): SQL {
  return typeof field.expr === 'function' ? field.expr(who) : field.expr;
}

/** Whether a computed field of the resource reads differently for different callers. */
export function computedDependsOnCaller(resource: ResourceDeclaration): boolean {
  return Object.values(resource.computed ?? {}).some((field) => typeof field.expr === 'function');
}

/** The writable (not read-only) fields of a resource. */
export function writableFields(resource: ResourceDeclaration): Record<string, WritableField> {
  return Object.fromEntries(Object.entries(resource.fields).filter(([, field]) => !field.readOnly));
}

/**
 * The shape of a resource's own records, as this caller sees them. Without a caller (for the
 * record's schema, which only their schemas make) computed properties read as NULL.
 */
export function shapeOf(resource: ResourceDeclaration, who?: Actor): RecordShape {
  const properties: Record<string, WireValue> = {};
  for (const [name, field] of Object.entries(resource.fields)) properties[name] = field.output ?? field.column;
  for (const [name, field] of Object.entries(resource.computed ?? {})) properties[name] = { sql: who ? computedExpr(field, who) : sql`NULL`, schema: field.schema };
  return { type: resource.type, table: resource.table, properties, component: resource.title.one };
}
