import { businessHoursHolidays } from '../../db/schema';
import type { OrderedPair } from '../businesshours/ordered-pair';

/** A holiday does not end before it starts: `endDate` >= `startDate` (one day when equal). */
export const holidayDates: OrderedPair = {
  table: businessHoursHolidays,
  start: { name: 'startDate', column: businessHoursHolidays.startDate },
  end: { name: 'endDate', column: businessHoursHolidays.endDate },
  allowEqual: true,
};

/** What a violation of the holiday table's check answers, at the given property path. */
export function holidayConstraints(source: string) {
  return {
    business_hours_holidays_order: { source, detail: 'endDate must not be before startDate' },
  };
}
