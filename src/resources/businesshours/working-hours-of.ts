import { sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import type { WorkingHours } from '../../lib/working-time';

/** The live business hours `chosen` (SQL over `b`) selects, as one row: see `workingHoursFrom`. */
export function workingHoursStatement(installationId: number, chosen: SQL): SQL {
  return sql`
    SELECT b.timezone_name,
      coalesce((SELECT json_agg(json_build_object('day', s.day, 'startHour', s.start_hour, 'endHour', s.end_hour)) FROM business_hours_schedules s WHERE s.businesshours_id = b.id AND s.state = 'active'), '[]') AS schedules,
      coalesce((SELECT json_agg(json_build_object('startDate', h.start_date, 'endDate', h.end_date)) FROM business_hours_holidays h WHERE h.businesshours_id = b.id AND h.state = 'active'), '[]') AS holidays
      FROM business_hours b WHERE b.installation_id = ${installationId} AND ${chosen} AND b.state = 'active'`;
}

/** A row of `workingHoursStatement` as the working-time count takes it; undefined for none (then time is calendar time). */
export function workingHoursFrom(row: Record<string, unknown> | undefined): WorkingHours | undefined {
  if (!row) return undefined;
  return {
    timezoneId: String(row.timezone_name),
    schedules: row.schedules as WorkingHours['schedules'],
    holidays: row.holidays as WorkingHours['holidays'],
  };
}

/**
 * Business hours as the working-time count takes them: the installation's default ones
 * (`isDefault`) or those of an id; undefined when there are none live (then time is calendar time).
 */
export async function workingHoursOf(
  db: Queryable,
  installationId: number,
  which: 'default' | number,
): Promise<WorkingHours | undefined> {
  const { rows } = await db.execute(
    workingHoursStatement(installationId, which === 'default' ? sql`b.is_default` : sql`b.id = ${which}`),
  );
  return workingHoursFrom(rows[0]);
}
