import { getTableColumns, sql, type Column } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Actor } from '../auth/principal';
import type { WritableField } from './types';

/** The table's property key of a column, as Drizzle's insert and update builders take it. */
export function columnKey(table: PgTable, column: Column): string {
  for (const [key, candidate] of Object.entries(getTableColumns(table))) {
    if (candidate === column) return key;
  }
  throw new Error(`column ${column.name} is not in its table`);
}

/** Maps validated wire properties to the row values Drizzle writes. */
export function rowValues(
  table: PgTable,
  fields: Record<string, WritableField>,
  body: Record<string, unknown>,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    if (body[name] !== undefined) values[columnKey(table, field.column)] = body[name];
  }
  return values;
}

/** The audit values of a new row. */
export function createdValues(who: Actor): Record<string, unknown> {
  return { installationId: who.installationId, createdBy: who.userId, updatedBy: who.userId };
}

/** The audit values of a changed row. */
export function updatedValues(who: Actor): Record<string, unknown> {
  return { updatedAt: sql`now()`, updatedBy: who.userId };
}

/** The audit values of a soft-deleted row. */
export function deletedValues(who: Actor): Record<string, unknown> {
  return {
    state: 'deleted',
    deletedAt: sql`now()`,
    deletedBy: who.userId,
    updatedAt: sql`now()`,
    updatedBy: who.userId,
  };
}
