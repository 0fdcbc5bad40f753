import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  date,
  foreignKey,
  index,
  integer,
  pgTable,
  smallint,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { auditColumns, globalAuditColumns } from './audit';

/**
 * The time zones business hours may use, each with the integer id the platform's clients send
 * and read as `timezoneId`, and its IANA name (`timezone_name`), one row per name ignoring case.
 * Seeded with the runtime's zones; a valid zone not yet here is added when first named. Ids never change.
 */
export const timeZones = pgTable(
  'timezones',
  {
    ...globalAuditColumns(),
    name: text('name').notNull(),
  },
  (t) => [
    uniqueIndex('timezones_name_key').on(sql`lower(${t.name})`),
    unique('timezones_id_name_key').on(t.id, t.name),
  ],
);

/** When a team works, in one IANA time zone. At most one live default per installation. */
export const businessHours = pgTable(
  'business_hours',
  {
    ...auditColumns(),
    name: text('name').notNull(),
    description: text('description'),
    isDefault: boolean('is_default').notNull().default(false),
    /** the zone's id in `timezones` */
    timezoneId: integer('timezone_id').notNull(),
    /** the same zone's IANA name, e.g. Europe/Dublin: the pair must be a row of `timezones` */
    timezoneName: text('timezone_name').notNull(),
  },
  (t) => [
    uniqueIndex('business_hours_one_default')
      .on(t.installationId)
      .where(sql`${t.isDefault} AND ${t.state} = 'active'`),
    foreignKey({
      name: 'business_hours_timezone_fk',
      columns: [t.timezoneId, t.timezoneName],
      foreignColumns: [timeZones.id, timeZones.name],
    }),
  ],
);

/** One working interval on one day of the week (0 Sunday to 6 Saturday), as local `HH:MM`. */
export const businessHoursSchedules = pgTable(
  'business_hours_schedules',
  {
    ...auditColumns(),
    businesshoursId: integer('businesshours_id')
      .notNull()
      .references(() => businessHours.id),
    day: smallint('day').notNull(),
    startHour: text('start_hour').notNull(),
    endHour: text('end_hour').notNull(),
  },
  (t) => [
    index('business_hours_schedules_parent_idx').on(t.businesshoursId),
    check('business_hours_schedules_day', sql`${t.day} BETWEEN 0 AND 6`),
    check(
      'business_hours_schedules_hours',
      sql`${t.startHour} ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$' AND ${t.endHour} ~ '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$' AND ${t.endHour} > ${t.startHour}`,
    ),
  ],
);

/** Days off: no working time from `startDate` to `endDate`, both included, in the hours' time zone. */
export const businessHoursHolidays = pgTable(
  'business_hours_holidays',
  {
    ...auditColumns(),
    businesshoursId: integer('businesshours_id')
      .notNull()
      .references(() => businessHours.id),
    name: text('name').notNull(),
    startDate: date('start_date', { mode: 'string' }).notNull(),
    endDate: date('end_date', { mode: 'string' }).notNull(),
  },
  (t) => [
    index('business_hours_holidays_parent_idx').on(t.businesshoursId),
    check('business_hours_holidays_order', sql`${t.endDate} >= ${t.startDate}`),
  ],
);
