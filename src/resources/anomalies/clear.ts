import { and, eq } from 'drizzle-orm';
import { anomalies } from '../../db/schema';
import { readOne, recordScope, schemasOf, updateRecords } from '../../engine';
import { noteEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { anomaliesResource } from './anomalies.resource';
import { clearBody, clearedProperties, clearValues } from './clearing';

const s = schemasOf(anomaliesResource);

/** `POST /v2/anomalies/{id}/clear.json`: marks one anomaly cleared, recording who and when. */
export const clearRoute = defineRoute({
  method: 'post', path: '/v2/anomalies/{id}/clear.json', tag: 'Anomalies', operationId: 'clearAnomaly', roles: anomaliesResource.access.write,
  summary: 'Clear an anomaly',
  description: 'Idempotent: an anomaly cleared before keeps its first `clearedAt` and `clearedBy`; a `clearNote` sent replaces the note.',
  request: { params: idParams, query: s.writeQuery, body: { required: true, content: { 'application/json': { schema: clearBody } } } },
  responses: { 200: jsonResponse('the cleared anomaly', s.one) },
}, async (c) => {
  const who = c.var.principal;
  const { id } = c.req.valid('param');
  const { includes } = c.req.valid('query');
  const { clearNote } = c.req.valid('json');
  const target = { table: anomalies, type: 'anomalies', where: and(recordScope(anomaliesResource, who), eq(anomalies.id, id))! };
  const updated = await updateRecords(c.var.db.http, who, target, clearValues(who, clearNote), clearedProperties);
  if (updated.length === 0) throw ApiError.notFound('id', `anomaly ${id} not found`);
  noteEvents(c.var.db, who.installationId, [['anomalies', 'updated']]);
  return c.json(await readOne(c, anomaliesResource, id, includes), 200);
});
