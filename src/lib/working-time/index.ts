import {
  holidayDays,
  weekdayOf,
  workingWeek,
  type HolidayInput,
  type MinuteRange,
  type ScheduleInput,
} from './working-week';
import { offsetPieces, zoneFormatter } from './zone-offsets';

export type { HolidayInput, ScheduleInput } from './working-week';
export { canonicalTimeZone } from './time-zone';

/** Business hours as the working-time count needs them. */
export interface WorkingHours {
  /** IANA time zone id the schedules and holidays are read in */
  timezoneId: string;
  schedules: readonly ScheduleInput[];
  holidays: readonly HolidayInput[];
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * Working milliseconds in `[from, to)` of the local wall-clock timeline (epoch milliseconds of
 * local time read as if it were UTC), one local day at a time.
 */
function workingWallTime(
  week: MinuteRange[][],
  holidays: readonly (readonly [number, number])[],
  from: number,
  to: number,
): number {
  let total = 0;
  for (let day = Math.floor(from / DAY_MS); day * DAY_MS < to; day++) {
    if (holidays.some(([first, last]) => day >= first && day <= last)) continue;
    const midnight = day * DAY_MS;
    for (const [start, end] of week[weekdayOf(day)]!) {
      const overlap = Math.min(to, midnight + end * MINUTE_MS) - Math.max(from, midnight + start * MINUTE_MS);
      if (overlap > 0) total += overlap;
    }
  }
  return total;
}

/**
 * The working minutes between two instants: the real time elapsed in `[from, to)` while the
 * local wall clock of `hours.timezoneId` shows a day that is not a holiday and a time of day
 * inside one of that weekday's schedules. Consequences of that definition:
 *
 * - 09:00–17:00 is 8 hours on the days clocks change too (the change happens outside it).
 * - Local times that do not exist (the hour skipped in spring) are not worked: 00:00–24:00 is
 *   23 hours on that day, and 02:30–10:00 in New York on that day runs from 03:00, 7 hours.
 * - Local times that repeat (the hour repeated in autumn) are worked each time they occur:
 *   00:00–24:00 is 25 hours on that day.
 * - Schedules of one weekday that overlap count once; a holiday takes whole local days off.
 * - `from` at or after `to` answers 0. The answer has a fraction when the instants are not on
 *   whole minutes (the count is exact, so counts of adjacent spans add up).
 *
 * Throws RangeError for an invalid date, an unknown time zone or a malformed schedule or holiday.
 * Cost grows with the days in the span (one Intl call a day), not with its minutes.
 */
export function workingMinutesBetween(hours: WorkingHours, from: Date, to: Date): number {
  const start = from.getTime();
  const end = to.getTime();
  if (Number.isNaN(start) || Number.isNaN(end)) throw new RangeError('from and to must be valid dates');
  zoneFormatter(hours.timezoneId);
  const week = workingWeek(hours.schedules);
  const holidays = holidayDays(hours.holidays);
  if (start >= end || week.every((ranges) => ranges.length === 0)) return 0;
  let total = 0;
  for (const piece of offsetPieces(hours.timezoneId, start, end)) {
    total += workingWallTime(week, holidays, piece.start + piece.offset, piece.end + piece.offset);
  }
  return total / MINUTE_MS;
}

/** How far ahead `addWorkingMinutes` looks before it says a target is never reached (holidays may take years off). */
const MAX_AHEAD_MS = 6 * 366 * DAY_MS;
/** `addWorkingMinutes` walks in spans of a week, then bisects inside the one where the minutes run out. */
const SPAN_MS = 7 * DAY_MS;

/**
 * The instant at which `minutes` working minutes have passed since `from` (the earliest instant
 * `to` with `workingMinutesBetween(hours, from, to) >= minutes`, to the millisecond); `from` itself
 * for 0 or less. Undefined when the hours have no working time within six years of `from`. It
 * walks forward a week at a time, counting each week once (counts of adjacent spans add up), then
 * bisects inside the week where the minutes run out: cost grows with the weeks, not their minutes.
 */
export function addWorkingMinutes(hours: WorkingHours, from: Date, minutes: number): Date | undefined {
  const start = from.getTime();
  if (Number.isNaN(start)) throw new RangeError('from must be a valid date');
  if (!(minutes > 0)) return new Date(start);
  let cursor = start;
  let remaining = minutes;
  for (;;) {
    const spanEnd = cursor + SPAN_MS;
    const worked = workingMinutesBetween(hours, new Date(cursor), new Date(spanEnd));
    if (worked >= remaining) break;
    remaining -= worked;
    cursor = spanEnd;
    if (cursor - start > MAX_AHEAD_MS) return undefined;
  }
  const enough = (end: number) => workingMinutesBetween(hours, new Date(cursor), new Date(end)) >= remaining;
  let low = cursor;
  let high = cursor + SPAN_MS;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (enough(middle)) high = middle;
    else low = middle;
  }
  return new Date(high);
}

/** `addWorkingMinutes` in working hours when given, else in calendar time. */
export function addClockMinutes(hours: WorkingHours | undefined, from: Date, minutes: number): Date | undefined {
  return hours ? addWorkingMinutes(hours, from, minutes) : new Date(from.getTime() + Math.max(0, minutes) * MINUTE_MS);
}

/** `workingMinutesBetween` in working hours when given, else calendar minutes (never negative). */
export function clockMinutesBetween(hours: WorkingHours | undefined, from: Date, to: Date): number {
  return hours ? workingMinutesBetween(hours, from, to) : Math.max(0, (to.getTime() - from.getTime()) / MINUTE_MS);
}
