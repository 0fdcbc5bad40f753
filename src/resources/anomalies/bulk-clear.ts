import { bulkResult, bulkResultSchema, bulkTarget, filterParam, updateStatement } from '../../engine';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { z } from 'zod';
import { anomaliesResource } from './anomalies.resource';
import { clearBody, clearedProperties, clearValues } from './clearing';

/**
 * `PATCH /v2/anomalies/clear.json?filter=...`: clears every live anomaly the filter selects,
 * in one statement, sent as a batch (which reports the events it wrote). `ids` lists them all,
 * those cleared before included (they stay cleared).
 */
export const bulkClearRoute = defineRoute({
  method: 'patch', path: '/v2/anomalies/clear.json', tag: 'Anomalies', operationId: 'clearAnomalies', roles: anomaliesResource.access.write,
  summary: 'Clear every anomaly the filter selects',
  request: { query: z.object({ filter: filterParam(anomaliesResource, true) }), body: { required: true, content: { 'application/json': { schema: clearBody } } } },
  responses: { 200: jsonResponse('the bulk result', bulkResultSchema) },
}, async (c) => {
  const who = c.var.principal;
  const target = bulkTarget(anomaliesResource, who, c.req.valid('query').filter);
  const { clearNote } = c.req.valid('json');
  const [cleared] = await c.var.db.batch([updateStatement(c.var.db.http, who, target, clearValues(who, clearNote), clearedProperties)]);
  return c.json(bulkResult(cleared!.map((row) => Number(row.id))), 200);
});
