import type { Column, SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import type { Env } from '../../app-env';
import type { Principal } from '../../auth/principal';
import type { Transaction } from '../../db/client';
import type { UserRole } from '../../db/schema';
import type { FilterFieldType } from './filter';
import type { Relation } from './relations';
import type { WireValue } from './record-json';

/** A table with the audit columns of `auditColumns()`. */
export type AuditedTable = PgTable & {
  id: PgColumn;
  /** absent only on global tables (catalogues every installation shares) */
  installationId?: PgColumn;
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
  /** how the property reads, when not as the bare column (a reference, say) */
  output?: WireValue;
  /** the value names a record of this table, which must be live in the caller's installation */
  references?: { table: AuditedTable; type: string };
}

/** A read-only property computed in SQL, usable in `filter` and `orderBy`; it may depend on the caller. */
export interface ComputedField {
  expr: SQL | ((who: Principal) => SQL);
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
  /**
   * Database constraints (unique indexes, checks, foreign keys) by name, and what a violation
   * answers: a unique one 409, the others 400, each naming the property at fault.
   */
  constraints?: Record<string, { source: string; detail: string }>;
  /** who may read and who may write */
  access: { read: readonly UserRole[]; write: readonly UserRole[] };
  /** the operations the generic routes serve; all of them when absent */
  operations?: readonly Operation[];
  /** `global`: a catalogue every installation reads (no installation column); default `installation` */
  tenancy?: 'installation' | 'global';
  /** a rule narrowing which of the installation's records the caller sees at all */
  scope?: (who: Principal) => SQL | undefined;
  /** body properties accepted and ignored (beside the audit set, `id` and `type`) */
  ignored?: readonly string[];
  /**
   * Runs in the write's transaction before a create (`id` undefined) or an update: checks that
   * need the database or several properties, and changes the validated wire record (which may
   * be amended) or other rows (e.g. clearing another default). Throw an ApiError to refuse.
   */
  beforeWrite?: (context: WriteContext, record: Record<string, unknown>, id: number | undefined) => Promise<void> | void;
  /**
   * Runs once an update is committed, with the record as it now reads: tells other parts of the
   * system (a conversation's room) what changed.
   */
  afterUpdate?: (env: Env, record: Record<string, unknown>) => Promise<void>;
  /** values the server sets on a new record, whatever the body says */
  onCreate?: (context: WriteContext) => Promise<Record<string, unknown>> | Record<string, unknown>;
}

/** What a write hook gets: the open transaction and the caller. */
export interface WriteContext {
  tx: Transaction;
  who: Principal;
}

export type Operation = 'list' | 'get' | 'create' | 'update' | 'delete' | 'bulkUpdate' | 'bulkDelete';

export function defineResource(declaration: ResourceDeclaration): ResourceDeclaration {
  return declaration;
}

/** A computed field's expression for this caller. */
export function computedExpr(field: ComputedField, who: Principal): SQL {
  return typeof field.expr === 'function' ? field.expr(who) : field.expr;
}

/** The shape of a resource's own records, as this caller sees them. */
export function shapeOf(resource: ResourceDeclaration, who: Principal): RecordShape {
  const properties: Record<string, WireValue> = {};
  for (const [name, field] of Object.entries(resource.fields)) properties[name] = field.output ?? field.column;
  for (const [name, field] of Object.entries(resource.computed ?? {})) properties[name] = computedExpr(field, who);
  return { type: resource.type, table: resource.table, properties };
}
