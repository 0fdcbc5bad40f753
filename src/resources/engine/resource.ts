import type { Column, SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import type { UserRole } from '../../db/schema';
import type { FilterFieldType } from './filter';
import type { Relation } from './relations';
import type { WireValue } from './record-json';

/** A table with the audit columns of `auditColumns()`. */
export type AuditedTable = PgTable & {
  id: PgColumn;
  installationId: PgColumn;
  state: PgColumn;
  createdAt: PgColumn;
  createdBy: PgColumn;
  updatedAt: PgColumn;
  updatedBy: PgColumn;
  deletedAt: PgColumn;
  deletedBy: PgColumn;
};

/** The audit set of the spec: names every audited record answers to in `filter` and `orderBy`. */
export const AUDIT_SET = ['createdAt', 'createdBy', 'deletedAt', 'deletedBy', 'updatedAt', 'updatedBy', 'state', 'id'] as const;

/** How records of one table look on the wire: the audit set plus these properties. */
export interface RecordShape {
  /** lowercase plural type name, also the `included` key */
  type: string;
  table: AuditedTable;
  properties: Record<string, WireValue>;
}

/** A property a client may write. */
export interface WritableField {
  column: PgColumn;
  /** the value's schema; nullable columns accept null */
  schema: z.ZodType;
  /** must be present on create */
  required?: boolean;
}

/** A read-only property computed in SQL, usable in `filter` and `orderBy`. */
export interface ComputedField {
  expr: SQL;
  type: FilterFieldType;
}

/**
 * A resource, declared once: the generic routes (`routes.ts`) give it list, get, create,
 * patch, delete, bulk update and bulk delete.
 */
export interface ResourceDeclaration {
  /** lowercase plural type name: the path segment, list wrapper and `included` key */
  type: string;
  /** lowercase singular: the wrapper of one record */
  singular: string;
  table: AuditedTable;
  fields: Record<string, WritableField>;
  computed?: Record<string, ComputedField>;
  /** names `filter` accepts (from the audit set, `fields` and `computed`) */
  filter: readonly string[];
  /** names `orderBy` accepts beyond `filter`'s, each with its sort expression */
  orderByExtra?: Record<string, SQL | Column>;
  /** `includes` names, each a relation written and read through the property of the same name */
  relations: Record<string, Relation>;
  /** unique constraints (index names) and the error a violation answers */
  unique?: Record<string, { source: string; detail: string }>;
  /** who may read and who may write */
  access: { read: readonly UserRole[]; write: readonly UserRole[] };
  /** the operations the generic routes serve; all of them when absent */
  operations?: readonly Operation[];
}

export type Operation = 'list' | 'get' | 'create' | 'update' | 'delete' | 'bulkUpdate' | 'bulkDelete';

export function defineResource(declaration: ResourceDeclaration): ResourceDeclaration {
  return declaration;
}

/** The shape of a resource's own records. */
export function shapeOf(resource: ResourceDeclaration): RecordShape {
  const properties: Record<string, WireValue> = {};
  for (const [name, field] of Object.entries(resource.fields)) properties[name] = field.column;
  for (const [name, field] of Object.entries(resource.computed ?? {})) properties[name] = field.expr;
  return { type: resource.type, table: resource.table, properties };
}
