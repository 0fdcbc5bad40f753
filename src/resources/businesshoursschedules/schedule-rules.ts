import { businessHoursSchedules } from '../../db/schema';
import type { OrderedPair } from '../businesshours/ordered-pair';

/** A schedule ends after it starts: `endHour` > `startHour`. */
export const scheduleHours: OrderedPair = {
  table: businessHoursSchedules,
  start: { name: 'startHour', column: businessHoursSchedules.startHour },
  end: { name: 'endHour', column: businessHoursSchedules.endHour },
  allowEqual: false,
};

/** What a violation of the schedule table's checks answers, naming the properties at fault. */
export function scheduleConstraints(sources: { hours: string; day: string }) {
  return {
    business_hours_schedules_hours: {
      source: sources.hours,
      detail: 'endHour must be after startHour, both local times "HH:MM"',
    },
    business_hours_schedules_day: { source: sources.day, detail: 'day must be 0 (Sunday) to 6 (Saturday)' },
  };
}
