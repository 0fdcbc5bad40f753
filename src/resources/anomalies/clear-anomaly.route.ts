import { and, eq, sql } from 'drizzle-orm';
import { anomalies } from '../../db/schema';
import { refuseWhen } from '../../db/refusal';
import { recordScope, schemasOf, sendWithReadBack, updateStatement } from '../../engine';
import { idParams } from '../../http/params';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { anomaliesResource } from './anomalies.resource';
import { clearBody, clearedProperties, clearValues } from './clearing';

const s = schemasOf(anomaliesResource);

/**
 * `POST /v2/anomalies/{id}/clear.json`: marks one anomaly cleared, recording who and when. One
 * batch: the update (a 404 when it finds no anomaly to clear, nothing written) and the read-back.
 */
export const clearAnomalyRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/anomalies/{id}/clear.json',
    tag: 'Anomalies',
    operationId: 'clearAnomaly',
    roles: anomaliesResource.access.write,
    summary: 'Clear an anomaly',
    description:
      'Idempotent: an anomaly cleared before keeps its first `clearedAt` and `clearedBy`; a `clearNote` sent replaces the note.',
    request: {
      params: idParams,
      query: s.writeQuery,
      body: { required: true, content: { 'application/json': { schema: clearBody } } },
    },
    example: { body: { anomaly: { clearNote: 'Expected: the spring sale brought the extra tickets' } } },
    responses: { 200: jsonResponse('the cleared anomaly', s.one) },
  },
  async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    const { includes } = c.req.valid('query');
    const { clearNote } = c.req.valid('json');
    const target = {
      table: anomalies,
      type: 'anomalies',
      where: and(recordScope(anomaliesResource, who), eq(anomalies.id, id))!,
    };
    const notThere = refuseWhen(sql`NOT EXISTS (SELECT 1 FROM changed)`, 404, 'id', `anomaly ${id} not found`);
    const clear = updateStatement(c.var.db.http, who, target, clearValues(who, clearNote), clearedProperties, notThere);
    const body = await sendWithReadBack(c.var.db, anomaliesResource, who, [clear], sql`${id}::int`, includes);
    if (!body) throw new Error(`anomaly ${id} is not there to read back`);
    return c.json(body, 200);
  },
);
