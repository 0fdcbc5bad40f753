import { and } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';
import { requireRole } from '../../auth/access';
import { ApiError } from '../../http/errors';
import { readJson, unwrapRecord, validate } from './body';
import { deletedValues, rowValues, updatedValues } from './columns';
import { compiled, queryableFields } from './compiled';
import { translateDbError } from '../../db/errors';
import { requireReferences } from './references';
import { recordScope } from './scope';
import type { ResourceDeclaration } from './resource';
import { selectionFromFilter } from './selection';

/** The bulk result record. `jobId` names a background job when the work is queued (not yet). */
export interface BulkResult {
  affected: number;
  ids: number[];
  jobId: number | null;
}

/**
 * The live records a bulk operation acts on: a filter is required, so no request touches
 * everything by accident, and deleted records are never changed (as a single PATCH would 404).
 */
function bulkTarget(c: Context<AppEnv>, resource: ResourceDeclaration) {
  const who = c.var.principal;
  const selection = selectionFromFilter(c.req.query('filter'), queryableFields(resource, who), who);
  if (!selection.where) throw ApiError.invalid('filter', 'a bulk operation needs a filter that selects the records');
  return and(recordScope(resource, who), selection.where)!;
}

function result(rows: { id: unknown }[]): BulkResult {
  return { affected: rows.length, ids: rows.map((row) => row.id as number).sort((a, b) => a - b), jobId: null };
}

/** Sets the given properties on every record the filter selects, in one statement. */
export function bulkUpdateHandler(resource: ResourceDeclaration) {
  return async (c: Context<AppEnv>) => {
    const who = c.var.principal;
    requireRole(who, resource.access.write);
    const target = bulkTarget(c, resource);
    const record = validate(compiled(resource).schemas.bulkPatch, unwrapRecord(await readJson(c), resource.singular), resource.singular);
    const values = rowValues(resource.table, resource.fields, record);
    if (Object.keys(values).length === 0) throw ApiError.invalid(resource.singular, 'name at least one property to set');
    await requireReferences(c.var.db.http, resource, who, record);
    try {
      const rows = await c.var.db.http
        .update(resource.table as PgTable)
        .set({ ...values, ...updatedValues(who) } as never)
        .where(target)
        .returning({ id: resource.table.id });
      return c.json(result(rows));
    } catch (error) {
      throw translateDbError(error, resource);
    }
  };
}

/** Soft-deletes every live record the filter selects, in one statement. */
export function bulkDeleteHandler(resource: ResourceDeclaration) {
  return async (c: Context<AppEnv>) => {
    const who = c.var.principal;
    requireRole(who, resource.access.write);
    const target = bulkTarget(c, resource);
    const rows = await c.var.db.http
      .update(resource.table as PgTable)
      .set(deletedValues(who) as never)
      .where(target)
      .returning({ id: resource.table.id });
    return c.json(result(rows));
  };
}
