import { and, eq, sql } from 'drizzle-orm';
import { businessHours, businessHoursHolidays, businessHoursSchedules } from '../../db/schema';
import { deletedValues, recordScope } from '../../engine';
import { insertEventsFrom } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { defineRoute } from '../../http/route';
import { businessHoursResource } from './businesshours.resource';

/**
 * `DELETE /v2/businesshours/{id}.json`: soft-deletes the business hours with their schedules and
 * holidays, which mean nothing without them, in one statement with a `deleted` event of each.
 * Triggers that use them are left as they are.
 */
export const deleteBusinessHourRoute = defineRoute(
  {
    method: 'delete',
    path: '/v2/businesshours/{id}.json',
    tag: 'BusinessHours',
    operationId: 'deleteBusinessHour',
    roles: businessHoursResource.access.write,
    summary: 'Delete business hours, with their schedules and holidays',
    description:
      'A soft delete of the business hours together with their live schedules and holidays, which mean nothing without them, in one statement with a `deleted` event of each; they then read as 404 and leave lists. Triggers that use them are left as they are, and deleting the default leaves none. Business hours of another installation, already deleted or not there are a 404. See docs/resources/businesshours.md.',
    request: { params: idParams },
    responses: { 204: { description: 'deleted' } },
  },
  async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    const http = c.var.db.http;
    // Children of the installation only, of the hours this statement deletes.
    const liveChildren = (table: typeof businessHoursSchedules | typeof businessHoursHolidays) =>
      and(
        eq(table.installationId, who.installationId),
        sql`${table.businesshoursId} IN (SELECT id FROM hours)`,
        eq(table.state, 'active'),
      );
    const remove = (
      table: typeof businessHours | typeof businessHoursSchedules | typeof businessHoursHolidays,
      where: ReturnType<typeof and>,
    ) => http.update(table).set(deletedValues(who)).where(where).returning({ id: table.id }).getSQL();
    const parent = sql`jsonb_build_object('parent', jsonb_build_object('id', ${id}::int, 'type', 'businesshours'))`;
    // sent as a batch of one: one exchange, whose last statement reports the events it wrote
    const [rows] = await c.var.db.batch([
      sql`
    WITH hours AS (${remove(businessHours, and(recordScope(businessHoursResource, who), eq(businessHours.id, id)))}),
    schedules AS (${remove(businessHoursSchedules, liveChildren(businessHoursSchedules))}),
    holidays AS (${remove(businessHoursHolidays, liveChildren(businessHoursHolidays))}),
    hours_events AS (${insertEventsFrom(sql`hours`, who, 'businesshours', 'deleted')}),
    schedule_events AS (${insertEventsFrom(sql`schedules`, who, 'businesshoursschedules', 'deleted', parent)}),
    holiday_events AS (${insertEventsFrom(sql`holidays`, who, 'businesshoursholidays', 'deleted', parent)})
    SELECT id FROM hours`,
    ]);
    if (rows!.length === 0) throw ApiError.notFound('id', `businesshour ${id} not found`);
    return c.body(null, 204);
  },
);
