import { and } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../app-env';
import type { Principal } from '../auth/principal';
import { translateDbError } from './constraints';
import { noteEvents } from '../events/record-events';
import { ApiError } from '../http/errors';
import { deleteRecords, updateRecords } from './changes';
import { rowValues } from './columns';
import { input } from './input';
import { requireReferences } from './references';
import { writableFields } from './resource';
import type { BulkQuery, BulkUpdateQuery } from './schemas';

interface FilterArgs {
  filter: string | Record<string, unknown>;
  bulkDryExecute?: boolean;
}
import type { ResourceDeclaration } from './types';
import { recordScope } from './scope';
import { selectionFromFilter } from './selection';
import { watchedProperties } from './write';

export const bulkResultSchema = z
  .object({
    affected: z.number().int().meta({ description: 'how many records changed' }),
    ids: z.array(z.number().int()).meta({ description: 'their ids, ascending' }),
    jobId: z.number().int().nullable().meta({ description: 'a background job doing the work, when it is queued; null: done' }),
    dryRun: z.boolean().meta({ description: 'true: nothing was changed; `affected` and `ids` say what the update would change' }),
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
  return { table: resource.table, type: resource.type, where: and(recordScope(resource, who, false, 'write'), selection.where)! };
}

export function bulkResult(ids: number[], dryRun = false): BulkResult {
  return { affected: ids.length, ids: [...ids].sort((a, b) => a - b), jobId: null, dryRun };
}

/** Thrown to roll a dry run back once it knows what it would change. */
class DryRun {
  constructor(readonly ids: number[]) {}
}

/** The filter of a bulk update: the query's or `filter_args.filter`, named once. */
function bulkFilter(query: string | undefined, args: FilterArgs | undefined): string | undefined {
  if (query !== undefined && args !== undefined) throw ApiError.invalid('filter_args.filter', 'name the filter once: in the query `filter` or in `filter_args`');
  if (args === undefined) return query;
  return typeof args.filter === 'string' ? args.filter : JSON.stringify(args.filter);
}

/** Sets the given properties on every record the filter selects: one statement, one event a changed record. */
export function bulkUpdateHandler(resource: ResourceDeclaration) {
  return async (c: Context<AppEnv>) => {
    const who = c.var.principal;
    const { filter_args: args, ...record } = input<Record<string, unknown> & { filter_args?: FilterArgs }>(c, 'json');
    const target = bulkTarget(resource, who, bulkFilter(input<BulkUpdateQuery>(c, 'query').filter, args));
    const values = rowValues(resource.table, writableFields(resource), record);
    if (Object.keys(values).length === 0) throw ApiError.invalid(resource.singular, 'name at least one property to set');
    await requireReferences(c.var.db.http, resource, who, record);
    const watched = watchedProperties(resource, record);
    const dryRun = args?.bulkDryExecute === true;
    try {
      // One statement over HTTP; a transaction when the resource checks the changed records or a dry run rolls back.
      const outcome =
        !dryRun && !resource.afterBulkWrite
          ? await updateRecords(c.var.db.http, who, target, values, watched)
          : await c.var.db
              .transaction(async (tx) => {
                const ids = await updateRecords(tx, who, target, values, watched);
                await resource.afterBulkWrite?.({ tx, who, env: c.env }, record, ids);
                if (dryRun) throw new DryRun(ids);
                return ids;
              })
              .catch((error: unknown) => {
                if (error instanceof DryRun) return error.ids;
                throw error;
              });
      if (!dryRun) noteEvents(c.var.db, who.installationId, [[resource.type, 'updated', Object.keys(watched)]]);
      return c.json(bulkResult(outcome, dryRun), 200);
    } catch (error) {
      throw translateDbError(error, resource);
    }
  };
}

/**
 * Soft-deletes every live record the filter selects: one statement, one event a record. A
 * resource whose single delete has a check (`beforeDelete`: a system record) has it run for each
 * selected record first, in the delete's transaction: one refused, none deleted.
 */
export function bulkDeleteHandler(resource: ResourceDeclaration) {
  return async (c: Context<AppEnv>) => {
    const who = c.var.principal;
    const target = bulkTarget(resource, who, input<BulkQuery>(c, 'query').filter);
    const ids = resource.beforeDelete
      ? await c.var.db.transaction(async (tx) => {
          const selected = await tx.select({ id: resource.table.id }).from(resource.table as PgTable).where(target.where).for('update');
          for (const { id } of selected) await resource.beforeDelete!({ tx, who, env: c.env }, Number(id));
          return deleteRecords(tx, who, target);
        })
      : await deleteRecords(c.var.db.http, who, target);
    noteEvents(c.var.db, who.installationId, [[resource.type, 'deleted']]);
    return c.json(bulkResult(ids), 200);
  };
}
