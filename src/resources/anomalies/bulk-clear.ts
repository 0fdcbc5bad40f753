import { and } from 'drizzle-orm';
import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { requireRole } from '../../auth/access';
import { anomalies } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { addRoute } from '../../http/route';
import { errorBodySchema } from '../../openapi/schemas';
import { readJson, unwrapRecord, validate } from '../engine/body';
import type { BulkResult } from '../engine/bulk';
import { queryableFields } from '../engine/compiled';
import { bulkResultSchema } from '../engine/routes';
import { recordScope } from '../engine/scope';
import { selectionFromFilter } from '../engine/selection';
import { anomaliesResource } from './anomalies.resource';
import { clearBodySchema, clearValues } from './clearing';

const error = { description: 'error', schema: errorBodySchema };

/**
 * `PATCH /v2/anomalies/clear.json?filter=...`: clears every live anomaly the filter selects,
 * in one statement. `ids` lists them all, those cleared before included (they stay cleared).
 */
export function bulkClearRoute(app: Hono<AppEnv>): void {
  addRoute(app, {
    method: 'patch', path: '/v2/anomalies/clear.json', tag: 'anomalies', summary: 'Clear every anomaly the filter selects',
    query: [{ name: 'filter', description: `JSON filter over: ${anomaliesResource.filter.join(', ')} (required)`, schema: { type: 'string' } }],
    body: { schema: clearBodySchema, required: true },
    responses: { 200: { description: 'bulk result', schema: bulkResultSchema }, 400: error, 401: error, 403: error, 413: error, 415: error },
  }, async (c) => {
    const who = c.var.principal;
    requireRole(who, anomaliesResource.access.write);
    const selection = selectionFromFilter(c.req.query('filter'), queryableFields(anomaliesResource, who), who);
    if (!selection.where) throw ApiError.invalid('filter', 'a bulk clear needs a filter that selects the anomalies');
    const { clearNote } = validate(clearBodySchema, unwrapRecord(await readJson(c), 'anomaly'), 'anomaly');
    const rows = await c.var.db.http
      .update(anomalies)
      .set(clearValues(who, clearNote))
      .where(and(recordScope(anomaliesResource, who), selection.where))
      .returning({ id: anomalies.id });
    const result: BulkResult = { affected: rows.length, ids: rows.map((row) => row.id).sort((a, b) => a - b), jobId: null };
    return c.json(result);
  });
}
