import { z } from 'zod';
import { businessHoursSchedules } from '../../db/schema';
import type { RecordShape, WritableField } from '../../engine';

const START_HOUR = /^([01]\d|2[0-3]):[0-5]\d$/;
const END_HOUR = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;

/** A schedule's own properties: where a schedule is written, on its own or inside its business hours. */
export const scheduleFields = {
  day: {
    column: businessHoursSchedules.day,
    schema: z.number().int().min(0, 'must be 0 (Sunday) to 6 (Saturday)').max(6, 'must be 0 (Sunday) to 6 (Saturday)'),
    required: true,
  },
  startHour: {
    column: businessHoursSchedules.startHour,
    schema: z.string().regex(START_HOUR, 'must be a local time "HH:MM" from 00:00 to 23:59'),
    required: true,
  },
  endHour: {
    column: businessHoursSchedules.endHour,
    schema: z.string().regex(END_HOUR, 'must be a local time "HH:MM" from 00:01 to 24:00 (the end of the day)'),
    required: true,
  },
} satisfies Record<string, WritableField>;

/** Schedules as records: their own and as business hours include them. */
export const scheduleShape: RecordShape = {
  type: 'businesshoursschedules',
  table: businessHoursSchedules,
  properties: {
    businesshours_id: businessHoursSchedules.businesshoursId,
    day: businessHoursSchedules.day,
    startHour: businessHoursSchedules.startHour,
    endHour: businessHoursSchedules.endHour,
  },
};
