import { ADMINS, EVERYONE } from '../../auth/access';
import { businessHoursHolidays } from '../../db/schema';
import { childWriteRules } from '../businesshours/child-rules';
import { businessHoursParentFields } from '../businesshours/parent-field';
import { AUDIT_SET, defineResource } from '../../engine';
import { includedUsers } from '../users/user-shape';
import { holidayFields } from './holiday-fields';
import { holidayConstraints, holidayDates } from './holiday-rules';

/** Whole local days off in business hours, `startDate` to `endDate` included. Workspace settings: admins write. */
export const businessHoursHolidaysResource = defineResource({
  type: 'businesshoursholidays',
  singular: 'businesshoursholiday',
  title: { one: 'BusinessHoursHoliday', many: 'BusinessHoursHolidays' },
  table: businessHoursHolidays,
  fields: {
    ...businessHoursParentFields(businessHoursHolidays.businesshoursId),
    ...holidayFields,
  },
  filter: [...AUDIT_SET, 'businesshours_id', 'endDate', 'name', 'startDate'],
  relations: { users: includedUsers() },
  constraints: {
    ...holidayConstraints('businesshoursholiday.endDate'),
    business_hours_holidays_businesshours_id_business_hours_id_fk: {
      source: 'businesshoursholiday.businesshours_id',
      detail: 'names no business hours here',
    },
  },
  access: { read: EVERYONE, write: ADMINS },
  examples: {
    create: { businesshours: { id: 1 }, name: 'New Year', startDate: '2027-01-01', endDate: '2027-01-01' },
    update: { name: "New Year's Day" },
  },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  ...childWriteRules('businesshoursholiday', holidayDates),
});
