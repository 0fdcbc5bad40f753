import { sql } from 'drizzle-orm';
import { boolean, check, date, index, integer, pgTable, smallint, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';

/** When a team works, in one IANA time zone. At most one live default per installation. */
export const businessHours = pgTable(
  'business_hours',
  {
    ...auditColumns(),
    name: text('name').notNull(),
    description: text('description'),
    isDefault: boolean('is_default').notNull().default(false),
    /** IANA time zone id, e.g. Europe/Dublin */
    timezoneId: text('timezone_id').notNull(),
    /** the same zone as `timezone_id`, under the platform's other name for it */
    timezoneName: text('timezone_name').notNull(),
  },
  (t) => [
    uniqueIndex('business_hours_one_default').on(t.installationId).where(sql`${t.isDefault} AND ${t.state} = 'active'`),
    check('business_hours_timezone_consistent', sql`${t.timezoneId} = ${t.timezoneName}`),
  ],
);

/** One working interval on one day of the week (0 Sunday to 6 Saturday), as local `HH:MM`. */
export const businessHoursSchedules = pgTable(
  'business_hours_schedules',
  {
    ...auditColumns(),
    businesshoursId: integer('businesshours_id').notNull().references(() => businessHours.id),
    day: smallint('day').notNull(),
    startHour: text('start_hour').notNull(),
    endHour: text('end_hour').notNull(),
  },
  (t) => [
    index('business_hours_schedules_parent_idx').on(t.businesshoursId),
    check('business_hours_schedules_day', sql`${t.day} BETWEEN 0 AND 6`),
    check('business_hours_schedules_hours', sql`${t.startHour} ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$' AND ${t.endHour} ~ '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$' AND ${t.endHour} > ${t.startHour}`),
  ],
);

/** Days off: no working time from `startDate` to `endDate`, both included, in the hours' time zone. */
export const businessHoursHolidays = pgTable(
  'business_hours_holidays',
  {
    ...auditColumns(),
    businesshoursId: integer('businesshours_id').notNull().references(() => businessHours.id),
    name: text('name').notNull(),
    startDate: date('start_date', { mode: 'string' }).notNull(),
    endDate: date('end_date', { mode: 'string' }).notNull(),
  },
  (t) => [
    index('business_hours_holidays_parent_idx').on(t.businesshoursId),
    check('business_hours_holidays_order', sql`${t.endDate} >= ${t.startDate}`),
  ],
);

/** Automations. Their own endpoints come later; business hours include the ones that use them. */
export const triggers = pgTable('triggers', {
  ...auditColumns(),
  name: text('name').notNull(),
  businesshoursId: integer('businesshours_id').references(() => businessHours.id),
});
