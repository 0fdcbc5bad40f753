import { and, eq } from 'drizzle-orm';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app-env';
import { requireRole } from '../../auth/access';
import { anomalies } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { addRoute, pathParam } from '../../http/route';
import { errorBodySchema } from '../../openapi/schemas';
import { readJson, unwrapRecord, validate } from '../engine/body';
import { compiled } from '../engine/compiled';
import { parseIncludes } from '../engine/list-params';
import { readOne } from '../engine/read';
import { recordScope } from '../engine/scope';
import { anomaliesResource } from './anomalies.resource';
import { clearBodySchema, clearValues } from './clearing';

const one = z.object({ anomaly: compiled(anomaliesResource).schemas.record, included: z.record(z.string(), z.array(z.unknown())) });
const error = { description: 'error', schema: errorBodySchema };

/** `POST /v2/anomalies/{id}/clear.json`: marks one anomaly cleared, recording who and when. */
export function clearRoute(app: Hono<AppEnv>): void {
  addRoute(app, {
    method: 'post', path: '/v2/anomalies/{id}/clear.json', tag: 'anomalies', summary: 'Clear an anomaly',
    query: [{ name: 'includes', description: 'comma list of: users, all', schema: { type: 'string' } }],
    body: { schema: clearBodySchema, required: true },
    responses: { 200: { description: 'the cleared anomaly', schema: one }, 400: error, 401: error, 403: error, 404: error, 413: error, 415: error },
  }, async (c) => {
    const who = c.var.principal;
    requireRole(who, anomaliesResource.access.write);
    const id = pathParam(c, 'id');
    const includes = parseIncludes(c.req.query('includes'), compiled(anomaliesResource).includeNames);
    const { clearNote } = validate(clearBodySchema, unwrapRecord(await readJson(c), 'anomaly'), 'anomaly');
    const updated = await c.var.db.http
      .update(anomalies)
      .set(clearValues(who, clearNote))
      .where(and(recordScope(anomaliesResource, who), eq(anomalies.id, id)))
      .returning({ id: anomalies.id });
    if (updated.length === 0) throw ApiError.notFound('id', `anomaly ${id} not found`);
    return c.json(await readOne(c, anomaliesResource, id, includes));
  });
}
