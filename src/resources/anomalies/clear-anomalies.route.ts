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
export const clearAnomaliesRoute = defineRoute(
  {
    method: 'patch',
    path: '/v2/anomalies/clear.json',
    tag: 'Anomalies',
    operationId: 'clearAnomalies',
    roles: anomaliesResource.access.write,
    summary: 'Clear every anomaly the filter selects',
    description:
      'Clears every live anomaly of the installation the required `filter` selects, in one statement (all or nothing): `status: cleared`, with the caller and now as `clearedBy` and `clearedAt`, and `clearNote` when the body sends one. An anomaly cleared before keeps its first clearing (a `clearNote` sent replaces its note) and is counted in `affected` and `ids` too; each anomaly that changed records an `updated` event. No filter, or `{}`, is a 400, and so is a body missing or naming a property an anomaly does not have. See docs/resources/anomalies.md.',
    request: {
      query: z.object({ filter: filterParam(anomaliesResource, true) }),
      body: { required: true, content: { 'application/json': { schema: clearBody } } },
    },
    example: { body: { anomaly: { clearNote: 'Expected: the spring sale brought the extra tickets' } } },
    responses: { 200: jsonResponse('the bulk result', bulkResultSchema) },
  },
  async (c) => {
    const who = c.var.principal;
    const target = bulkTarget(anomaliesResource, who, c.req.valid('query').filter);
    const { clearNote } = c.req.valid('json');
    const [cleared] = await c.var.db.batch([
      updateStatement(c.var.db.http, who, target, clearValues(who, clearNote), clearedProperties),
    ]);
    return c.json(bulkResult(cleared!.map((row) => Number(row.id))), 200);
  },
);
