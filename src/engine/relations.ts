import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import type { Principal } from '../../auth/principal';
import type { Transaction } from '../../db/client';
import { ApiError } from '../../http/errors';
import { columnKey, createdValues, deletedValues, rowValues, updatedValues } from './columns';
import { recordJson } from './record-json';
import type { AuditedTable, RecordShape, WritableField } from './resource';
import { ignoringReadOnly } from './body';
import { tenantScope } from './scope';

/**
 * A relation of a resource, named by an `includes` name. It is read as a JSON array of the
 * related live records of the current parent row, and written through the body property of
 * the same name.
 */
export interface Relation {
  /** type name of the related records, their `included` key */
  readonly type: string;
  /**
   * many: the property holds an array of references; one: a reference or null; none: the
   * record already refers to them by other properties (`createdBy`...), so only `included` fills.
   */
  readonly cardinality: 'many' | 'one' | 'none';
  /** the related records of the current parent row, as a JSON array; they may depend on the caller */
  recordsJson(parent: AuditedTable, who: Principal): SQL;
  /** its records differ by caller (then its SQL is built per request, not once) */
  readonly dependsOnCaller?: boolean;
  /** absent: read-only, no body property */
  readonly bodySchema?: z.ZodType;
  write?(tx: Transaction, who: Principal, parentId: number, value: unknown, source: string): Promise<void>;
}

const entryId = z.number().int().positive().max(2_147_483_647);

function entrySchema(fields: Record<string, WritableField>, type: string) {
  const shape: Record<string, z.ZodType> = { id: entryId.optional(), type: z.literal(type).optional(), delete: z.boolean().optional() };
  for (const [name, field] of Object.entries(fields)) shape[name] = field.schema.optional();
  return ignoringReadOnly(z.strictObject(shape));
}

function jsonArrayOf(shape: RecordShape, from: SQL, where: SQL): SQL {
  return sql`(SELECT coalesce(json_agg(${recordJson(shape)} ORDER BY ${shape.table.id}), '[]'::json) FROM ${from} WHERE ${where})`;
}

function missingFields(fields: Record<string, WritableField>, entry: Record<string, unknown>): string[] {
  return Object.entries(fields)
    .filter(([name, field]) => field.required && entry[name] === undefined)
    .map(([name]) => name);
}

/** Checks that every id is a live child of the parent; answers 400 naming the first that is not. */
async function requireChildren(
  tx: Transaction,
  table: AuditedTable,
  scope: SQL,
  entries: { id?: number }[],
  source: string,
  type: string,
): Promise<void> {
  const ids = entries.flatMap((e) => (e.id === undefined ? [] : [e.id]));
  if (ids.length === 0) return;
  const found = await tx.select({ id: table.id }).from(table as PgTable).where(and(scope, inArray(table.id, ids)));
  const known = new Set(found.map((r) => r.id as number));
  const index = entries.findIndex((e) => e.id !== undefined && !known.has(e.id));
  if (index >= 0) throw ApiError.invalid(`${source}[${index}].id`, `no ${type} ${entries[index]!.id} here`);
}

/**
 * Records owned by the parent (a company's domains, phones, ...). An entry without `id` is
 * created; with `id` and `delete: true` it is removed; with `id` and properties those are
 * changed; a bare reference leaves it as it is. Entries not sent stay.
 */
export function hasMany(options: { shape: RecordShape; parentKey: PgColumn; fields: Record<string, WritableField> }): Relation {
  const { shape, parentKey, fields } = options;
  const table = shape.table;
  const liveChildrenOf = (parentId: number) => and(eq(parentKey, parentId), eq(table.state, 'active'))!;
  return {
    type: shape.type,
    cardinality: 'many',
    recordsJson: (parent) => jsonArrayOf(shape, sql`${table}`, sql`${parentKey} = ${parent.id} AND ${table.state} = 'active'`),
    bodySchema: z.array(entrySchema(fields, shape.type)).max(100),
    async write(tx, who, parentId, value, source) {
      const entries = value as Array<Record<string, unknown> & { id?: number; delete?: boolean }>;
      await requireChildren(tx, table, liveChildrenOf(parentId), entries, source, shape.type);
      const parentColumn = columnKey(table, parentKey);
      const inserts = entries.flatMap((entry, index) => {
        if (entry.id !== undefined) return [];
        if (entry.delete) throw ApiError.invalid(`${source}[${index}].delete`, 'only an entry with an id can be deleted');
        const missing = missingFields(fields, entry);
        if (missing.length) throw ApiError.invalid(`${source}[${index}].${missing[0]}`, 'must be set');
        return [{ ...rowValues(table, fields, entry), ...createdValues(who), [parentColumn]: parentId }];
      });
      if (inserts.length) await tx.insert(table as PgTable).values(inserts as never);
      const removed = entries.flatMap((e) => (e.id !== undefined && e.delete ? [e.id] : []));
      if (removed.length) {
        await tx.update(table as PgTable).set(deletedValues(who) as never).where(and(liveChildrenOf(parentId), inArray(table.id, removed)));
      }
      for (const entry of entries) {
        const changes = rowValues(table, fields, entry);
        if (entry.id === undefined || entry.delete || Object.keys(changes).length === 0) continue;
        await tx
          .update(table as PgTable)
          .set({ ...changes, ...updatedValues(who) } as never)
          .where(and(liveChildrenOf(parentId), eq(table.id, entry.id)));
      }
    },
  };
}

/** Records owned by the parent that are written elsewhere (a conversation's messages): read-only. */
export function ownedRecords(options: { shape: RecordShape; parentKey: PgColumn }): Relation {
  const { shape, parentKey } = options;
  return {
    type: shape.type,
    cardinality: 'many',
    recordsJson: (parent) => jsonArrayOf(shape, sql`${shape.table}`, sql`${parentKey} = ${parent.id} AND ${shape.table.state} = 'active'`),
  };
}

/**
 * At most one live record owned by the parent (a company's time-log settings). The property
 * takes the record's properties, which create it or change it, or null, which removes it.
 */
export function hasOne(options: { shape: RecordShape; parentKey: PgColumn; fields: Record<string, WritableField> }): Relation {
  const { shape, parentKey, fields } = options;
  const table = shape.table;
  // `id` and `type` are accepted so the reference a client read can be sent back.
  const schema: Record<string, z.ZodType> = { id: entryId.optional(), type: z.literal(shape.type).optional() };
  for (const [name, field] of Object.entries(fields)) schema[name] = field.schema.optional();
  const liveChildOf = (parentId: number) => and(eq(parentKey, parentId), eq(table.state, 'active'))!;
  return {
    type: shape.type,
    cardinality: 'one',
    recordsJson: (parent) => jsonArrayOf(shape, sql`${table}`, sql`${parentKey} = ${parent.id} AND ${table.state} = 'active'`),
    bodySchema: ignoringReadOnly(z.strictObject(schema)).nullable(),
    async write(tx, who, parentId, value, source) {
      if (value === null) {
        await tx.update(table as PgTable).set(deletedValues(who) as never).where(liveChildOf(parentId));
        return;
      }
      const changes = rowValues(table, fields, value as Record<string, unknown>);
      const updated = await tx
        .update(table as PgTable)
        .set({ ...changes, ...updatedValues(who) } as never)
        .where(liveChildOf(parentId))
        .returning({ id: table.id });
      if (updated.length) return;
      const missing = missingFields(fields, value as Record<string, unknown>);
      if (missing.length) throw ApiError.invalid(`${source}.${missing[0]}`, 'must be set');
      await tx.insert(table as PgTable).values({ ...changes, ...createdValues(who), [columnKey(table, parentKey)]: parentId } as never);
    },
  };
}

/**
 * Links between the parent and records that live on their own (a company's customers).
 * `{"id": 5}` links record 5, `{"id": 5, "delete": true}` unlinks it; links not sent stay.
 */
export function manyToMany(options: {
  target: RecordShape;
  through: PgTable & { installationId: PgColumn };
  parentKey: PgColumn;
  targetKey: PgColumn;
}): Relation {
  const { target, through, parentKey, targetKey } = options;
  const entry = ignoringReadOnly(z.strictObject({ id: entryId, type: z.literal(target.type).optional(), delete: z.boolean().optional() }));
  return {
    type: target.type,
    cardinality: 'many',
    recordsJson: (parent) =>
      jsonArrayOf(
        target,
        sql`${through} JOIN ${target.table} ON ${target.table.id} = ${targetKey}`,
        sql`${parentKey} = ${parent.id} AND ${target.table.state} = 'active'`,
      ),
    bodySchema: z.array(entry).max(500),
    async write(tx, who, parentId, value, source) {
      const entries = value as { id: number; delete?: boolean }[];
      const linking = entries.filter((e) => !e.delete);
      const scope = tenantScope(target.table, who.installationId)!;
      const toCheck = entries.map((e) => (e.delete ? {} : e));
      await requireChildren(tx, target.table, scope, toCheck, source, target.type);
      if (linking.length) {
        const rows = linking.map((e) => ({
          installationId: who.installationId,
          [columnKey(through, parentKey)]: parentId,
          [columnKey(through, targetKey)]: e.id,
          createdBy: who.userId,
        }));
        await tx.insert(through).values(rows as never).onConflictDoNothing();
      }
      const unlinking = entries.filter((e) => e.delete).map((e) => e.id);
      if (unlinking.length) await tx.delete(through).where(and(eq(parentKey, parentId), inArray(targetKey, unlinking)));
    },
  };
}

/**
 * The records that properties of the parent refer to (`includes=users`: the users named by
 * `createdBy`, `updatedBy`, `deletedBy`, `user`...). Read-only: the references are the parent's own.
 */
export function referencedBy(options: { target: RecordShape; columns: (parent: AuditedTable) => (PgColumn | SQL | undefined)[] }): Relation {
  const { target } = options;
  return {
    type: target.type,
    cardinality: 'none',
    recordsJson(parent) {
      const ids = options.columns(parent).filter((c): c is PgColumn | SQL => c !== undefined);
      return jsonArrayOf(target, sql`${target.table}`, sql`${target.table.id} IN (${sql.join(ids.map((c) => sql`${c}`), sql`, `)})`);
    },
  };
}
