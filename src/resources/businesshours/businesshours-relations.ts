import { businessHoursHolidays, businessHoursSchedules } from '../../db/schema';
import { holidayFields, holidayShape } from '../businesshoursholidays/holiday-fields';
import { scheduleFields, scheduleShape } from '../businesshoursschedules/schedule-fields';
import { hasMany } from '../../engine';
import { includedUsers } from '../users/user-shape';
import { triggersUsingHours } from './trigger-shape';

/**
 * The `includes` names of business hours. Schedules and holidays are also written through
 * their property (entries without `id` are created, `{"id", "delete": true}` removes one), so
 * a week can be set up in one request; triggers are read-only.
 */
export const businessHoursRelations = {
  businesshoursholidays: hasMany({
    shape: holidayShape,
    parentKey: businessHoursHolidays.businesshoursId,
    fields: holidayFields,
  }),
  businesshoursschedules: hasMany({
    shape: scheduleShape,
    parentKey: businessHoursSchedules.businesshoursId,
    fields: scheduleFields,
  }),
  triggers: triggersUsingHours,
  users: includedUsers(),
};
