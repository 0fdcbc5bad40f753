import { z } from 'zod';
import { businessHoursHolidays } from '../../db/schema';
import type { RecordShape, WritableField } from '../../engine';

/** A calendar date `YYYY-MM-DD` that exists (no 2025-02-30), year 1 to 9999 as Postgres takes it. */
export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const [year, month, day] = text.split('-').map(Number) as [number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const isoDate = z.string().refine(isCalendarDate, 'must be a calendar date "YYYY-MM-DD"');

/** A holiday's own properties: where a holiday is written, on its own or inside its business hours. */
export const holidayFields = {
  name: { column: businessHoursHolidays.name, schema: z.string().trim().min(1).max(255), required: true },
  startDate: { column: businessHoursHolidays.startDate, schema: isoDate, required: true },
  endDate: { column: businessHoursHolidays.endDate, schema: isoDate, required: true },
} satisfies Record<string, WritableField>;

/** Holidays as records: their own and as business hours include them. */
export const holidayShape: RecordShape = {
  type: 'businesshoursholidays',
  table: businessHoursHolidays,
  properties: {
    businesshours_id: businessHoursHolidays.businesshoursId,
    name: businessHoursHolidays.name,
    startDate: businessHoursHolidays.startDate,
    endDate: businessHoursHolidays.endDate,
  },
};
