import { and, eq } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import type { Actor } from '../auth/principal';
import type { Transaction } from '../db/client';
import { translateDbError } from './constraints';
import { ApiError } from '../http/errors';
import { createRecords, deleteRecords, deleteStatement, updateRecords } from './changes';
import { rowValues } from './columns';
import { input, type IdParam } from './input';
import { readBack } from './read';
import { requireReferences, type Selecting } from './references';
import { writableFields } from './resource';
import type { DeleteQuery, WriteQuery } from './schemas';
import { moveUses, moveUsesStatements } from './uses';
import { takeDefaultFlag } from './default-flag';
import type { ResourceDeclaration, WriteContext } from './types';
import { holdsSharedRows, recordScope } from './scope';
import { notWritableCheck, plannable, plannedCreate, plannedUpdate } from './planned-write';
import { watchedProperties } from './watched';

async function writeRelations(
  tx: Transaction,
  resource: ResourceDeclaration,
  who: Actor,
  id: number,
  record: Record<string, unknown>,
) {
  for (const [name, relation] of Object.entries(resource.relations)) {
    if (record[name] !== undefined && relation.write)
      await relation.write(tx, who, { type: resource.type, id }, record[name], `${resource.singular}.${name}`);
  }
}

/** What a write answers with: the includes asked for, and the relations the body wrote. */
function includesAfterWrite(
  resource: ResourceDeclaration,
  asked: readonly string[],
  record: Record<string, unknown>,
): string[] {
  return Object.keys(resource.relations).filter((name) => asked.includes(name) || record[name] !== undefined);
}

async function inTransaction<T>(
  c: Context<AppEnv>,
  resource: ResourceDeclaration,
  work: (tx: Transaction) => Promise<T>,
): Promise<T> {
  try {
    return await c.var.db.transaction(work);
  } catch (error) {
    throw translateDbError(error, resource);
  }
}

/**
 * The create of a record from its validated body (`schemasOf(resource).create`), in the caller's
 * transaction: references checked, the resource's hooks, the row with its event, the relations
 * its body names. Answers the new id. A create that does not come from a request (mail making a
 * ticket) goes through here as the API's does.
 */
export async function createRecord(
  context: WriteContext,
  resource: ResourceDeclaration,
  record: Record<string, unknown>,
): Promise<number> {
  const { tx, who } = context;
  await requireReferences(tx, resource, who, record);
  const before = await resource.beforeWrite?.(context, record, undefined);
  await takeDefaultFlag(context, resource, record, undefined);
  const serverSet = (await resource.onCreate?.(context)) ?? {};
  const [id] = await createRecords(tx, who, resource, [
    { ...rowValues(resource.table, writableFields(resource), record), ...serverSet },
  ]);
  await writeRelations(tx, resource, who, id!, record);
  await resource.afterWrite?.(context, record, id!, true, before);
  return id!;
}

/** Creates the record and what its body's relations name, in one transaction with their events: one batch where it can be. */
export function createHandler(resource: ResourceDeclaration) {
  return async (c: Context<AppEnv>) => {
    const who = c.var.principal;
    const sent = input<Record<string, unknown>>(c, 'json');
    const includes = includesAfterWrite(resource, input<WriteQuery>(c, 'query').includes, sent);
    const planned = plannable(resource)
      ? await inBatch(resource, () => plannedCreate(c.var.db, c.env, resource, who, sent, includes))
      : undefined;
    if (planned) return c.json(planned.body, 201);
    const written = await inTransaction(c, resource, async (tx) => {
      // each try starts from the body as it arrived: the hooks amend their own copy
      const record = { ...sent };
      const id = await createRecord({ tx, who, env: c.env }, resource, record);
      return { body: await readBack(tx, resource, who, id, includes), record };
    });
    return c.json(written.body, 201);
  };
}

/** PATCH, and PUT with PATCH's meaning: exactly the properties sent change. One batch where it can be. */
export function updateHandler(resource: ResourceDeclaration) {
  return async (c: Context<AppEnv>) => {
    const who = c.var.principal;
    const { id } = input<IdParam>(c, 'param');
    const sent = input<Record<string, unknown>>(c, 'json');
    const includes = includesAfterWrite(resource, input<WriteQuery>(c, 'query').includes, sent);
    const planned = plannable(resource)
      ? await inBatch(resource, () => plannedUpdate(c.var.db, c.env, resource, who, id, sent, includes))
      : undefined;
    const written =
      planned ??
      (await inTransaction(c, resource, async (tx) => {
        // each try starts from the body as it arrived: the hooks amend their own copy
        const record = { ...sent };
        const context = { tx, who, env: c.env };
        await requireReferences(tx, resource, who, record);
        const before = await resource.beforeWrite?.(context, record, id);
        await takeDefaultFlag(context, resource, record, id);
        const values = rowValues(resource.table, writableFields(resource), record);
        const target = {
          table: resource.table,
          type: resource.type,
          where: and(recordScope(resource, who, false, 'write'), eq(resource.table.id, id))!,
        };
        const updated = await updateRecords(tx, who, target, values, watchedProperties(resource, record));
        if (updated.length === 0) throw await notWritable(tx, resource, who, id, 'changed');
        await writeRelations(tx, resource, who, id, record);
        await resource.afterWrite?.(context, record, id, false, before);
        return { body: await readBack(tx, resource, who, id, includes), record };
      }));
    // gone between the batch's check and its update
    if (written.body === null) throw ApiError.notFound('id', `${resource.singular} ${id} not found`);
    resource.afterCommit?.(id, written.record);
    return c.json(written.body, 200);
  };
}

/** A planned write's answer, undefined when the body needs the interactive write; a broken rule comes back as its 4xx. */
async function inBatch<T>(resource: ResourceDeclaration, work: () => Promise<T | undefined>): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    throw translateDbError(error, resource);
  }
}

/**
 * Why a write found no record to change: one of the rows every installation shares (a table whose
 * installation may be null, `sharedRows`) is a 409 saying so; anything else is not there, a 404.
 */
async function notWritable(
  db: Selecting,
  resource: ResourceDeclaration,
  who: Actor,
  id: number,
  verb: 'changed' | 'deleted',
): Promise<ApiError> {
  if (holdsSharedRows(resource.table)) {
    const [shared] = await db
      .select({ id: resource.table.id })
      .from(resource.table as PgTable)
      .where(and(recordScope(resource, who), eq(resource.table.id, id)));
    if (shared) {
      const what = resource.sharedRows ?? `the ${resource.type} every installation shares`;
      return ApiError.conflict(
        'id',
        `${resource.singular} ${id} is one of ${what}, which every installation shares: it cannot be ${verb}`,
      );
    }
  }
  return ApiError.notFound('id', `${resource.singular} ${id} not found`);
}

/**
 * Soft delete: the record then reads as 404 and leaves lists. One statement with its event; a
 * resource with a delete hook or records that use it deletes in a transaction, after the hook
 * and after moving those records to `replaceWith` (`uses.ts`).
 */
export function deleteHandler(resource: ResourceDeclaration) {
  return async (c: Context<AppEnv>) => {
    const who = c.var.principal;
    const { id } = input<IdParam>(c, 'param');
    const target = {
      table: resource.table,
      type: resource.type,
      where: and(recordScope(resource, who, false, 'write'), eq(resource.table.id, id))!,
    };
    const uses = resource.usedBy ?? [];
    // one batch where the resource's after-delete rule, if any, has a batch form: the record
    // locked and checked when others use it, their move, the delete, then the rule's statements
    const before = resource.beforeDelete ? resource.planned?.beforeDelete : () => [];
    const after = resource.afterDelete ? resource.planned?.afterDelete : () => [];
    const planned = before && after;
    const replaceWith = uses.length ? input<DeleteQuery>(c, 'query').replaceWith : undefined;
    const writer = c.var.db.http;
    const first = !before
      ? []
      : [
          ...before(who, id, c.env),
          ...(uses.length
            ? [
                notWritableCheck(resource, who, id, target.where, 'deleted'),
                ...moveUsesStatements(writer, resource, who, id, replaceWith),
              ]
            : []),
        ];
    const deleted = planned
      ? (await inBatch(resource, () =>
          c.var.db.batch([...first, deleteStatement(writer, who, target), ...planned(writer, who, id)]),
        ))![first.length]!.map((row) => Number(row.id))
      : await inTransaction(c, resource, async (tx) => {
          const context = { tx, who, env: c.env };
          await resource.beforeDelete?.(context, id);
          const [live] = await tx
            .select({ id: resource.table.id })
            .from(resource.table as PgTable)
            .where(target.where)
            .for('update');
          if (!live) return [];
          await moveUses(tx, resource, who, id, replaceWith);
          const gone = await deleteRecords(tx, who, target);
          await resource.afterDelete?.(context, id);
          return gone;
        });
    if (deleted.length === 0) throw await notWritable(c.var.db.http, resource, who, id, 'deleted');
    resource.afterCommit?.(id);
    return c.body(null, 204);
  };
}
