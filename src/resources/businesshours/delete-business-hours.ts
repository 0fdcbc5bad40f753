import { and, eq } from 'drizzle-orm';
import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { requireRole } from '../../auth/access';
import { businessHours, businessHoursHolidays, businessHoursSchedules } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { addRoute, pathParam } from '../../http/route';
import { errorBodySchema } from '../../openapi/schemas';
import { deletedValues } from '../engine/columns';
import { recordScope } from '../engine/scope';
import { businessHoursResource } from './businesshours.resource';

const error = { description: 'error', schema: errorBodySchema };

/**
 * `DELETE /v2/businesshours/{id}.json`: soft-deletes the business hours with their schedules and
 * holidays, which mean nothing without them, in one batch (one transaction). Triggers that use
 * them are left as they are.
 */
export function deleteBusinessHoursRoute(app: Hono<AppEnv>): void {
  addRoute(app, {
    method: 'delete', path: '/v2/businesshours/{id}.json', tag: 'businesshours',
    summary: 'Delete business hours, with their schedules and holidays',
    responses: { 204: { description: 'deleted' }, 400: error, 401: error, 403: error, 404: error },
  }, async (c) => {
    const who = c.var.principal;
    requireRole(who, businessHoursResource.access.write);
    const id = pathParam(c, 'id');
    // Children of the installation only: so another installation's id deletes nothing at all.
    const liveChildren = (table: typeof businessHoursSchedules | typeof businessHoursHolidays) =>
      and(eq(table.installationId, who.installationId), eq(table.businesshoursId, id), eq(table.state, 'active'));
    const [deleted] = await c.var.db.http.batch([
      c.var.db.http
        .update(businessHours)
        .set(deletedValues(who))
        .where(and(recordScope(businessHoursResource, who), eq(businessHours.id, id)))
        .returning({ id: businessHours.id }),
      c.var.db.http.update(businessHoursSchedules).set(deletedValues(who)).where(liveChildren(businessHoursSchedules)),
      c.var.db.http.update(businessHoursHolidays).set(deletedValues(who)).where(liveChildren(businessHoursHolidays)),
    ]);
    if (deleted.length === 0) throw ApiError.notFound('id', `businesshour ${id} not found`);
    return c.body(null, 204);
  });
}
