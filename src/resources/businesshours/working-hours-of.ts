import { sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import type { WorkingHours } from '../../lib/working-time';

/**
 * Business hours as the working-time count takes them: the installation's default ones
 * (`isDefault`) or those of an id; undefined when there are none live (then time is calendar time).
 */
export async function workingHoursOf(db: Queryable, installationId: number, which: 'default' | number): Promise<WorkingHours | undefined> {
  const chosen = which === 'default' ? sql`b.is_default` : sql`b.id = ${which}`;
  const { rows } = await db.execute(sql`
    SELECT b.timezone_name,
      coalesce((SELECT json_agg(json_build_object('day', s.day, 'startHour', s.start_hour, 'endHour', s.end_hour)) FROM business_hours_schedules s WHERE s.businesshours_id = b.id AND s.state = 'active'), '[]') AS schedules,
      coalesce((SELECT json_agg(json_build_object('startDate', h.start_date, 'endDate', h.end_date)) FROM business_hours_holidays h WHERE h.businesshours_id = b.id AND h.state = 'active'), '[]') AS holidays
      FROM business_hours b WHERE b.installation_id = ${installationId} AND ${chosen} AND b.state = 'active'`);
  const row = rows[0];
  if (!row) return undefined;
  return { timezoneId: String(row.timezone_name), schedules: row.schedules as WorkingHours['schedules'], holidays: row.holidays as WorkingHours['holidays'] };
}
