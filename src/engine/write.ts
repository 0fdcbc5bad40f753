import { and, eq } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import type { Actor } from '../auth/principal';
import type { Queryable, Transaction } from '../db/client';
import { translateDbError } from './constraints';
import { noteEvents, type EventKind, type WrittenEvents } from '../events/record-events';
import { ApiError } from '../http/errors';
import { createRecords, deleteRecords, updateRecords } from './changes';
import { rowValues } from './columns';
import { selectOne } from './queries';
import { oneRecordBody } from './read';
import { requireReferences } from './references';
import { writableFields } from './resource';
import type { ResourceDeclaration } from './types';
import { recordScope } from './scope';
import type { WireValue } from './wire';

async function writeRelations(tx: Transaction, resource: ResourceDeclaration, who: Actor, id: number, record: Record<string, unknown>) {
  for (const [name, relation] of Object.entries(resource.relations)) {
    if (record[name] !== undefined && relation.write) await relation.write(tx, who, { type: resource.type, id }, record[name], `${resource.singular}.${name}`);
  }
}

/** What a write answers with: the includes asked for, and the relations the body wrote. */
function includesAfterWrite(resource: ResourceDeclaration, asked: readonly string[], record: Record<string, unknown>): string[] {
  const written = Object.keys(resource.relations).filter((name) => record[name] !== undefined);
  return [...new Set([...asked, ...written])];
}

async function readBack(tx: Transaction, resource: ResourceDeclaration, who: Actor, id: number, includes: string[]) {
  const result = await selectOne(tx as unknown as Queryable, resource, id, { who, includes });
  return oneRecordBody(resource, result!);
}

/** The events a write of the resource may write: its own of this kind, links of it, and any of its relations' records. */
export function writtenEvents(resource: ResourceDeclaration, kind: EventKind): WrittenEvents {
  return [[resource.type, kind], [resource.type, 'linked'], [resource.type, 'unlinked'], ...Object.values(resource.relations).map((relation) => [relation.type] as const)];
}

/** The wire properties a write of these body properties may change: watched for the `updated` event. */
export function watchedProperties(resource: ResourceDeclaration, record: Record<string, unknown>): Record<string, WireValue> {
  const watched: Record<string, WireValue> = {};
  for (const [name, field] of Object.entries(writableFields(resource))) {
    if (record[name] !== undefined) watched[name] = field.output ?? field.column;
  }
  return watched;
}

async function inTransaction<T>(c: Context<AppEnv>, resource: ResourceDeclaration, work: (tx: Transaction) => Promise<T>): Promise<T> {
  try {
    return await c.var.db.transaction(work);
  } catch (error) {
    throw translateDbError(error, resource);
  }
}

type Validated = { json: Record<string, unknown>; query: { includes: string[] }; param: { id: number } };
const input = <K extends keyof Validated>(c: Context<AppEnv>, target: K) => (c.req as unknown as { valid(t: K): Validated[K] }).valid(target);

/** Creates the record and what its body's relations name, in one transaction with their events. */
export function createHandler(resource: ResourceDeclaration) {
  return async (c: Context<AppEnv>) => {
    const who = c.var.principal;
    const record = { ...input(c, 'json') };
    const includes = includesAfterWrite(resource, input(c, 'query').includes, record);
    const body = await inTransaction(c, resource, async (tx) => {
      await requireReferences(tx, resource, who, record);
      await resource.beforeWrite?.({ tx, who }, record, undefined);
      const serverSet = (await resource.onCreate?.({ tx, who })) ?? {};
      const [id] = await createRecords(tx, who, resource, [{ ...rowValues(resource.table, writableFields(resource), record), ...serverSet }]);
      await writeRelations(tx, resource, who, id!, record);
      return readBack(tx, resource, who, id!, includes);
    });
    noteEvents(c.var.db, who.installationId, writtenEvents(resource, 'created'));
    return c.json(body, 201);
  };
}

/** PATCH, and PUT with PATCH's meaning: exactly the properties sent change. */
export function updateHandler(resource: ResourceDeclaration) {
  return async (c: Context<AppEnv>) => {
    const who = c.var.principal;
    const { id } = input(c, 'param');
    const record = { ...input(c, 'json') };
    const includes = includesAfterWrite(resource, input(c, 'query').includes, record);
    const body = await inTransaction(c, resource, async (tx) => {
      await requireReferences(tx, resource, who, record);
      await resource.beforeWrite?.({ tx, who }, record, id);
      const values = rowValues(resource.table, writableFields(resource), record);
      const target = { table: resource.table, type: resource.type, where: and(recordScope(resource, who), eq(resource.table.id, id))! };
      const updated = await updateRecords(tx, who, target, values, watchedProperties(resource, record));
      if (updated.length === 0) throw ApiError.notFound('id', `${resource.singular} ${id} not found`);
      await writeRelations(tx, resource, who, id, record);
      return readBack(tx, resource, who, id, includes);
    });
    noteEvents(c.var.db, who.installationId, writtenEvents(resource, 'updated'));
    return c.json(body, 200);
  };
}

/** Soft delete: the record then reads as 404 and leaves lists. One statement with its event. */
export function deleteHandler(resource: ResourceDeclaration) {
  return async (c: Context<AppEnv>) => {
    const who = c.var.principal;
    const { id } = input(c, 'param');
    const target = { table: resource.table, type: resource.type, where: and(recordScope(resource, who), eq(resource.table.id, id))! };
    const deleted = await deleteRecords(c.var.db.http, who, target);
    if (deleted.length === 0) throw ApiError.notFound('id', `${resource.singular} ${id} not found`);
    noteEvents(c.var.db, who.installationId, [[resource.type, 'deleted']]);
    return c.body(null, 204);
  };
}
