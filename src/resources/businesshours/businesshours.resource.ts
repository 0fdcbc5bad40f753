import { eq, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import { businessHours, businessHoursHolidays, businessHoursSchedules } from '../../db/schema';
import { holidayDates, holidayConstraints } from '../businesshoursholidays/holiday-rules';
import { scheduleConstraints, scheduleHours } from '../businesshoursschedules/schedule-rules';
import { AUDIT_SET, defineResource, type WriteContext } from '../../engine';
import { businessHoursRelations } from './businesshours-relations';
import { orderedCheck, requireOrdered, type OrderedPair, type PairEntry } from './ordered-pair';
import { reconcileTimeZone, timeZoneIdSchema, timeZoneNameSchema, timeZoneStatements } from './time-zone';

/** The entries of a relation the body writes, as the order checks take them (removals need no check). */
function relationEntries(record: Record<string, unknown>, name: string): PairEntry[] {
  const entries = (record[name] as Record<string, unknown>[] | undefined) ?? [];
  return entries.flatMap((values, index) =>
    values.delete ? [] : [{ source: `businesshour.${name}[${index}]`, id: values.id as number | undefined, values }],
  );
}

/** The children the body writes: each relation's order rule and where its stored entries live. */
function childrenOf(id: number | undefined): [string, OrderedPair, SQL][] {
  // On create no entry with an id is a child yet; the relation's write refuses those.
  const within = (parentKey: PgColumn) => (id === undefined ? sql`false` : eq(parentKey, id));
  return [
    ['businesshoursschedules', scheduleHours, within(businessHoursSchedules.businesshoursId)],
    ['businesshoursholidays', holidayDates, within(businessHoursHolidays.businesshoursId)],
  ];
}

/** Schedules and holidays sent inside the business hours are checked as their own endpoints check them. */
async function requireOrderedChildren(
  context: WriteContext,
  record: Record<string, unknown>,
  id: number | undefined,
): Promise<void> {
  for (const [name, pair, within] of childrenOf(id))
    await requireOrdered(context.tx, context.who, pair, relationEntries(record, name), within);
}

/** When a team works, in one time zone. Workspace settings: everyone reads, admins write. */
export const businessHoursResource = defineResource({
  type: 'businesshours',
  singular: 'businesshour',
  title: { one: 'BusinessHour', many: 'BusinessHours' },
  table: businessHours,
  fields: {
    name: { column: businessHours.name, schema: z.string().trim().min(1).max(255), required: true },
    description: { column: businessHours.description, schema: z.string().trim().max(10_000).nullable() },
    isDefault: { column: businessHours.isDefault, schema: z.boolean() },
    timezoneId: { column: businessHours.timezoneId, schema: timeZoneIdSchema },
    timezone_name: { column: businessHours.timezoneName, schema: timeZoneNameSchema },
  },
  filter: [...AUDIT_SET, 'description', 'isDefault', 'name', 'timezoneId', 'timezone_name'],
  relations: businessHoursRelations,
  constraints: {
    business_hours_timezone_fk: {
      source: 'businesshour.timezoneId',
      detail: 'must be a time zone of /v2/timezones.json',
    },
    business_hours_one_default: {
      source: 'businesshour.isDefault',
      detail: 'other business hours became the default at the same moment; try again',
    },
    ...scheduleConstraints({
      hours: 'businesshour.businesshoursschedules',
      day: 'businesshour.businesshoursschedules',
    }),
    ...holidayConstraints('businesshour.businesshoursholidays'),
  },
  access: { read: EVERYONE, write: ADMINS },
  examples: {
    create: {
      name: 'London office',
      timezone_name: 'Europe/London',
      businesshoursschedules: [{ day: 1, startHour: '09:00', endHour: '17:30' }],
    },
    update: { description: 'Weekdays, half past five on Fridays' },
  },
  // Delete is a route of its own (`delete-business-hour.route.ts`): it takes the schedules and holidays along.
  operations: ['list', 'get', 'create', 'update'],
  // A trigger chooses its business hours; the reference a client reads back is accepted and ignored.
  ignored: ['triggers'],
  defaultFlag: 'isDefault',
  async beforeWrite(context, record, id) {
    await reconcileTimeZone(context.tx, record, id === undefined);
    await requireOrderedChildren(context, record, id);
  },
  planned: {
    first: (_db, who, record, id) => [
      ...timeZoneStatements(record, id === undefined),
      ...childrenOf(id).flatMap(([name, pair, within]) =>
        orderedCheck(who, pair, relationEntries(record, name), within),
      ),
    ],
  },
});
