import { sql, type SQL } from 'drizzle-orm';
import type { Actor } from '../auth/principal';
import type { ComputedField, RecordShape, ResourceDeclaration, WritableField } from './types';
import type { WireValue } from './wire';
import { declareLiveStates } from './scope';

/** The audit set of the spec: names every audited record answers to in `filter` and `orderBy`. */
export const AUDIT_SET = [
  'createdAt',
  'createdBy',
  'deletedAt',
  'deletedBy',
  'updatedAt',
  'updatedBy',
  'state',
  'id',
] as const;

export function defineResource(declaration: ResourceDeclaration): ResourceDeclaration {
  if (declaration.liveStates) declareLiveStates(declaration.table, declaration.liveStates);
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
 * record's schema, and for a shape other resources include) a computed property that depends on
 * the caller reads as NULL.
 */
export function shapeOf(resource: ResourceDeclaration, who?: Actor): RecordShape {
  return shapeOfFields(
    {
      type: resource.type,
      component: resource.title.one,
      table: resource.table,
      fields: resource.fields,
      computed: resource.computed,
    },
    who,
  );
}

/** A record shape made of a resource's fields, declared apart so that others may include its records. */
export function shapeOfFields(
  declared: {
    type: string;
    component: string;
    table: RecordShape['table'];
    fields: Record<string, WritableField>;
    computed?: Record<string, ComputedField>;
  },
  who?: Actor,
): RecordShape {
  const properties: Record<string, WireValue> = {};
  for (const [name, field] of Object.entries(declared.fields))
    if (!field.writeOnly) properties[name] = field.output ?? field.column;
  for (const [name, field] of Object.entries(declared.computed ?? {})) {
    const expr = typeof field.expr === 'function' ? (who ? field.expr(who) : sql`NULL`) : field.expr;
    properties[name] = { sql: expr, schema: field.schema };
  }
  return { type: declared.type, table: declared.table, properties, component: declared.component };
}
