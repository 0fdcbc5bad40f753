import { and, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../app-env';
import type { Transaction } from '../db/client';
import { intList } from '../db/sql-values';
import { recalledIds, remember } from '../db/refusal';
import type { Principal } from '../auth/principal';
import { translateDbError } from './constraints';
import { ApiError } from '../http/errors';
import { deleteRecords, deleteStatement, updateRecords } from './changes';
import { rowValues } from './columns';
import { input } from './input';
import { requireReferences } from './references';
import { writableFields } from './resource';
import type { BulkQuery, BulkUpdateQuery } from './schemas';

interface FilterArgs {
  filter: string | Record<string, unknown>;
  bulkDryExecute?: boolean;
}
import type { ResourceDeclaration, WriteContext } from './types';
import { recordScope } from './scope';
import { selectionFromFilter } from './selection';
import { watchedProperties } from './watched';
import { plannedBulkUpdate } from './planned-write';

export const bulkResultSchema = z
  .object({
    affected: z.number().int().meta({ description: 'how many records changed' }),
    ids: z.array(z.number().int()).meta({ description: 'their ids, ascending' }),
    jobId: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'a background job doing the work, when it is queued; null: done' }),
    dryRun: z
      .boolean()
      .meta({ description: 'true: nothing was changed; `affected` and `ids` say what the update would change' }),
  })
  .meta({ id: 'BulkOpResponse' });

/** The bulk result record. `jobId` names a background job when the work is queued (not yet). */
type BulkResult = z.infer<typeof bulkResultSchema>;

/**
 * The live records a bulk operation acts on: a filter is required, so no request touches
 * everything by accident, and deleted records are never changed (as a single PATCH would 404).
 */
export function bulkTarget(resource: ResourceDeclaration, who: Principal, filter: string | undefined) {
  const selection = selectionFromFilter(filter, resource, who);
  if (!selection.where) throw ApiError.invalid('filter', 'a bulk operation needs a filter that selects the records');
  return {
    table: resource.table,
    type: resource.type,
    where: and(recordScope(resource, who, false, 'write'), selection.where)!,
  };
}

type BulkTarget = ReturnType<typeof bulkTarget>;

export function bulkResult(ids: number[], dryRun = false): BulkResult {
  return { affected: ids.length, ids: [...ids].sort((a, b) => a - b), jobId: null, dryRun };
}

/** Thrown to roll a dry run back once it knows what it would change. */
class DryRun {
  constructor(readonly ids: number[]) {}
}

/** The filter of a bulk update: the query's or `filter_args.filter`, named once. */
function bulkFilter(query: string | undefined, args: FilterArgs | undefined): string | undefined {
  if (query !== undefined && args !== undefined)
    throw ApiError.invalid('filter_args.filter', 'name the filter once: in the query `filter` or in `filter_args`');
  if (args === undefined) return query;
  return typeof args.filter === 'string' ? args.filter : JSON.stringify(args.filter);
}

/** The records a bulk write selected, locked, and its target narrowed to them: a record created meanwhile is not changed unchecked. */
async function lockSelected(
  tx: Transaction,
  resource: ResourceDeclaration,
  target: BulkTarget,
): Promise<{ ids: number[]; target: BulkTarget }> {
  const rows = await tx
    .select({ id: resource.table.id })
    .from(resource.table as PgTable)
    .where(target.where)
    .orderBy(resource.table.id)
    .for('update');
  const ids = rows.map((row) => Number(row.id));
  return { ids, target: { ...target, where: and(target.where, sql`${resource.table.id} IN ${intList(ids)}`)! } };
}

/**
 * A property a record's `beforeWrite` amended apart from the first record's (one statement sets
 * one set of values), or a relation it set (a bulk update writes none): set record by record.
 */
function setApart(
  resource: ResourceDeclaration,
  sent: Record<string, unknown>,
  first: Record<string, unknown>,
  body: Record<string, unknown>,
): string | undefined {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  return (
    Object.keys(writableFields(resource)).find((name) => !same(body[name], first[name])) ??
    Object.keys(resource.relations).find((name) => !same(body[name], sent[name]))
  );
}

/** A record's body as `beforeWrite` left it, and what it answered (`afterWrite`'s `before`). */
interface BeforeWrite {
  body: Record<string, unknown>;
  before: unknown;
}

/**
 * Holds a bulk update to the rules of a single one, before it changes anything: the resource's
 * `beforeBulkWrite` over all the records at once, else its `beforeWrite` for each in turn, each on
 * its own copy of the body. Answers each record's body as the hooks left it, and what they answered.
 */
async function checkBefore(
  context: WriteContext,
  resource: ResourceDeclaration,
  sent: Record<string, unknown>,
  ids: number[],
): Promise<Map<number, BeforeWrite>> {
  const bodies = new Map<number, BeforeWrite>();
  if (resource.beforeBulkWrite) {
    await resource.beforeBulkWrite(context, sent, ids);
    for (const id of ids) bodies.set(id, { body: sent, before: undefined });
    return bodies;
  }
  for (const id of ids) {
    const body = { ...sent };
    const before = await resource.beforeWrite?.(context, body, id);
    const apart = setApart(resource, sent, bodies.values().next().value?.body ?? body, body);
    if (apart)
      throw ApiError.invalid(
        `${resource.singular}.${apart}`,
        `not settable in bulk: its rules set it record by record; set it on each ${resource.singular}`,
      );
    bodies.set(id, { body, before });
  }
  return bodies;
}

/** Holds the changed records to what a single update's later hooks check: `afterBulkWrite` over all of them, else `afterWrite` for each. */
async function checkAfter(
  context: WriteContext,
  resource: ResourceDeclaration,
  record: Record<string, unknown>,
  bodies: Map<number, BeforeWrite>,
  ids: number[],
): Promise<void> {
  if (resource.afterBulkWrite) return resource.afterBulkWrite(context, record, ids);
  if (resource.afterWrite)
    for (const id of ids) {
      const written = bodies.get(id);
      await resource.afterWrite(context, written?.body ?? record, id, false, written?.before);
    }
}

/** The relations the body sets in bulk (`bulkWrite`), by name. */
const bulkRelationsIn = (resource: ResourceDeclaration, sent: Record<string, unknown>) =>
  Object.entries(resource.relations).filter(([name, relation]) => sent[name] !== undefined && relation.bulkWrite);

/**
 * Sets the given properties on every record the filter selects: one statement, one event a
 * changed record, in one batch with the resource's bulk rules as statements where it has them
 * (`plannedBulkUpdate`). The relations that say how (`bulkWrite`) are written over them after it,
 * as a single update writes them, and a resource whose rules need the transaction has the
 * selected records locked and held to them in one (`checkBefore`, `checkAfter`): one refused,
 * none changed.
 */
export function bulkUpdateHandler(resource: ResourceDeclaration) {
  return async (c: Context<AppEnv>) => {
    const who = c.var.principal;
    const { filter_args: args, ...sent } = input<Record<string, unknown> & { filter_args?: FilterArgs }>(c, 'json');
    const target = bulkTarget(resource, who, bulkFilter(input<BulkUpdateQuery>(c, 'query').filter, args));
    const relations = bulkRelationsIn(resource, sent);
    if (Object.keys(rowValues(resource.table, writableFields(resource), sent)).length === 0 && relations.length === 0)
      throw ApiError.invalid(resource.singular, 'name at least one property to set');
    const dryRun = args?.bulkDryExecute === true;
    try {
      // One batch (a dry run's rolled back at its end); a transaction when a relation set has no
      // batch form, or the resource's rules have none.
      const planned = await plannedBulkUpdate(c.var.db, resource, who, target, sent, relations, dryRun);
      if (planned) return c.json(bulkResult(planned, dryRun), 200);
      await requireReferences(c.var.db.http, resource, who, sent);
      const ids = await c.var.db
        .transaction(async (tx) => {
          const context = { tx, who, env: c.env };
          const selected = await lockSelected(tx, resource, target);
          const bodies = await checkBefore(context, resource, sent, selected.ids);
          const record = bodies.values().next().value?.body ?? sent;
          const ids =
            selected.ids.length === 0
              ? []
              : await updateRecords(
                  tx,
                  who,
                  selected.target,
                  rowValues(resource.table, writableFields(resource), record),
                  watchedProperties(resource, record),
                );
          for (const [name, relation] of relations)
            await relation.bulkWrite!(tx, who, ids, record[name], `${resource.singular}.${name}`);
          await checkAfter(context, resource, record, bodies, ids);
          if (dryRun) throw new DryRun(ids);
          return ids;
        })
        .catch((error: unknown) => {
          if (error instanceof DryRun) return error.ids;
          throw error;
        });
      return c.json(bulkResult(ids, dryRun), 200);
    } catch (error) {
      throw translateDbError(error, resource);
    }
  };
}

/** The name the ids a bulk delete selected go by in its batch (a JSON array). */
const DELETE_IDS = 'bulk_delete_ids';

/**
 * A bulk delete of a resource with delete rules as one batch: the selected records locked and
 * their ids fixed, the rules' statements over them (`planned.bulkBeforeDelete`: a refusal stops
 * the batch), then the delete of those ids. Undefined where the rules have no such form.
 */
async function plannedBulkDelete(
  c: Context<AppEnv>,
  resource: ResourceDeclaration,
  target: BulkTarget,
): Promise<number[] | undefined> {
  const plan = resource.planned?.bulkBeforeDelete;
  if (!plan || resource.afterDelete) return undefined;
  const who = c.var.principal;
  const { table } = resource;
  const selected = sql`${table.id} IN ${recalledIds(DELETE_IDS)}`;
  const lock = sql`SELECT ${remember(
    DELETE_IDS,
    sql`(SELECT coalesce(jsonb_agg(s.id ORDER BY s.id), '[]'::jsonb) FROM (
      SELECT ${table.id} AS id FROM ${table} WHERE ${target.where} ORDER BY ${table.id} FOR UPDATE) s)`,
  )}`;
  const results = await c.var.db.batch([
    lock,
    ...plan(who, selected, c.env),
    deleteStatement(c.var.db.http, who, { ...target, where: and(target.where, selected)! }),
  ]);
  return results.at(-1)!.map((row) => Number(row.id));
}

/**
 * Soft-deletes every live record the filter selects: one statement, one event a record. A
 * resource whose single delete has rules (`beforeDelete`: a system record, another's) has them
 * hold over every selected record in the same batch (`plannedBulkDelete`), or, where they have no
 * batch form (or `afterDelete` runs), in the delete's transaction: one refused, none deleted. (A
 * resource whose records others use has no bulk delete: `routes.ts`.)
 */
export function bulkDeleteHandler(resource: ResourceDeclaration) {
  return async (c: Context<AppEnv>) => {
    const who = c.var.principal;
    const target = bulkTarget(resource, who, input<BulkQuery>(c, 'query').filter);
    if (!resource.beforeDelete && !resource.afterDelete) {
      return c.json(
        bulkResult(
          (await c.var.db.batch([deleteStatement(c.var.db.http, who, target)]))[0]!.map((row) => Number(row.id)),
        ),
        200,
      );
    }
    const ids =
      (await plannedBulkDelete(c, resource, target)) ??
      (await c.var.db.transaction(async (tx) => {
        const context = { tx, who, env: c.env };
        const selected = await lockSelected(tx, resource, target);
        for (const id of selected.ids) await resource.beforeDelete?.(context, id);
        const deleted = selected.ids.length === 0 ? [] : await deleteRecords(tx, who, selected.target);
        for (const id of deleted) await resource.afterDelete?.(context, id);
        return deleted;
      }));
    return c.json(bulkResult(ids), 200);
  };
}
