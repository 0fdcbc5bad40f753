import { ADMINS, EVERYONE } from '../../auth/access';
import { businessHoursSchedules } from '../../db/schema';
import { childWriteRules } from '../businesshours/child-rules';
import { businessHoursParentFields } from '../businesshours/parent-field';
import { AUDIT_SET, defineResource } from '../../engine';
import { includedUsers } from '../users/user-shape';
import { scheduleFields } from './schedule-fields';
import { scheduleConstraints, scheduleHours } from './schedule-rules';

/** One working interval of business hours on one weekday. Workspace settings: admins write. */
export const businessHoursSchedulesResource = defineResource({
  type: 'businesshoursschedules',
  singular: 'businesshoursschedule',
  title: { one: 'BusinessHoursSchedule', many: 'BusinessHoursSchedules' },
  table: businessHoursSchedules,
  fields: {
    ...businessHoursParentFields(businessHoursSchedules.businesshoursId),
    ...scheduleFields,
  },
  filter: [...AUDIT_SET, 'businesshours_id', 'day', 'endHour', 'startHour'],
  relations: { users: includedUsers() },
  constraints: {
    ...scheduleConstraints({ hours: 'businesshoursschedule.endHour', day: 'businesshoursschedule.day' }),
    business_hours_schedules_businesshours_id_business_hours_id_fk: {
      source: 'businesshoursschedule.businesshours_id',
      detail: 'names no business hours here',
    },
  },
  access: { read: EVERYONE, write: ADMINS },
  examples: {
    create: { businesshours: { id: 1 }, day: 6, startHour: '10:00', endHour: '14:00' },
    update: { endHour: '15:00' },
  },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  ...childWriteRules('businesshoursschedule', scheduleHours),
});
