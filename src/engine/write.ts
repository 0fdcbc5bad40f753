import { and, eq } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';
import { requireRole } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import type { Queryable, Transaction } from '../../db/client';
import { ApiError } from '../../http/errors';
import { pathParam } from '../../http/route';
import { readJson, unwrapRecord, validate } from './body';
import { requireReferences } from './references';
import { createdValues, deletedValues, rowValues, updatedValues } from './columns';
import { compiled } from './compiled';
import { translateDbError } from '../../db/errors';
import { parseIncludes } from './list-params';
import { selectOne } from './queries';
import { recordScope } from './scope';
import { oneRecordBody } from './read';
import type { ResourceDeclaration } from './resource';

async function writeRelations(tx: Transaction, resource: ResourceDeclaration, who: Principal, id: number, record: Record<string, unknown>) {
  for (const [name, relation] of Object.entries(resource.relations)) {
    if (record[name] !== undefined && relation.write) await relation.write(tx, who, id, record[name], `${resource.singular}.${name}`);
  }
}

/** What a write answers with: the includes asked for, and the relations the body wrote. */
function includesAfterWrite(c: Context<AppEnv>, resource: ResourceDeclaration, record: Record<string, unknown>): string[] {
  const asked = parseIncludes(c.req.query('includes'), compiled(resource).includeNames);
  const written = Object.keys(resource.relations).filter((name) => record[name] !== undefined);
  return [...new Set([...asked, ...written])];
}

async function readBack(tx: Transaction, resource: ResourceDeclaration, who: Principal, id: number, includes: string[]) {
  const result = await selectOne(tx as unknown as Queryable, resource, id, { who, includes });
  return oneRecordBody(resource, result!);
}

async function inTransaction<T>(c: Context<AppEnv>, resource: ResourceDeclaration, work: (tx: Transaction) => Promise<T>): Promise<T> {
  try {
    return await c.var.db.transaction(work);
  } catch (error) {
    throw translateDbError(error, resource);
  }
}

export function createHandler(resource: ResourceDeclaration) {
  return async (c: Context<AppEnv>) => {
    const who = c.var.principal;
    requireRole(who, resource.access.write);
    const record = validate(compiled(resource).schemas.create, unwrapRecord(await readJson(c), resource.singular), resource.singular);
    const includes = includesAfterWrite(c, resource, record);
    const body = await inTransaction(c, resource, async (tx) => {
      const table = resource.table as PgTable;
      await requireReferences(tx, resource, who, record);
      await resource.beforeWrite?.({ tx, who }, record, undefined);
      const serverSet = (await resource.onCreate?.({ tx, who })) ?? {};
      const values = { ...rowValues(table, resource.fields, record), ...serverSet, ...createdValues(who) };
      const [row] = await tx.insert(table).values(values as never).returning({ id: resource.table.id });
      const id = row!.id as number;
      await writeRelations(tx, resource, who, id, record);
      return readBack(tx, resource, who, id, includes);
    });
    return c.json(body, 201);
  };
}

/** PATCH, and PUT with PATCH's meaning: exactly the properties sent change. */
export function updateHandler(resource: ResourceDeclaration) {
  return async (c: Context<AppEnv>) => {
    const who = c.var.principal;
    requireRole(who, resource.access.write);
    const id = pathParam(c, 'id');
    const record = validate(compiled(resource).schemas.patch, unwrapRecord(await readJson(c), resource.singular), resource.singular);
    const includes = includesAfterWrite(c, resource, record);
    const body = await inTransaction(c, resource, async (tx) => {
      const table = resource.table as PgTable;
      await requireReferences(tx, resource, who, record);
      await resource.beforeWrite?.({ tx, who }, record, id);
      const values = { ...rowValues(table, resource.fields, record), ...updatedValues(who) };
      const updated = await tx
        .update(table)
        .set(values as never)
        .where(and(recordScope(resource, who), eq(resource.table.id, id)))
        .returning({ id: resource.table.id });
      if (updated.length === 0) throw ApiError.notFound('id', `${resource.singular} ${id} not found`);
      await writeRelations(tx, resource, who, id, record);
      return readBack(tx, resource, who, id, includes);
    });
    await resource.afterUpdate?.(c.env, body[resource.singular] as Record<string, unknown>);
    return c.json(body);
  };
}

/** Soft delete: the record then reads as 404 and leaves lists. */
export function deleteHandler(resource: ResourceDeclaration) {
  return async (c: Context<AppEnv>) => {
    const who = c.var.principal;
    requireRole(who, resource.access.write);
    const id = pathParam(c, 'id');
    const deleted = await c.var.db.http
      .update(resource.table as PgTable)
      .set(deletedValues(who) as never)
      .where(and(recordScope(resource, who), eq(resource.table.id, id)))
      .returning({ id: resource.table.id });
    if (deleted.length === 0) throw ApiError.notFound('id', `${resource.singular} ${id} not found`);
    return c.body(null, 204);
  };
}
