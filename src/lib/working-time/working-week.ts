/**
 * Schedules and holidays in the form the counting needs: minutes of the day per weekday, merged,
 * and holidays as ranges of day numbers (days since 1970-01-01 on the local calendar).
 */

export interface ScheduleInput {
  /** 0 Sunday to 6 Saturday */
  day: number;
  /** local `HH:MM`, 00:00 to 23:59 */
  startHour: string;
  /** local `HH:MM`, up to 24:00 (the end of the day) */
  endHour: string;
}

export interface HolidayInput {
  /** first local day off, `YYYY-MM-DD` */
  startDate: string;
  /** last local day off, `YYYY-MM-DD`, included */
  endDate: string;
}

/** `[startMinute, endMinute)` of a local day. */
export type MinuteRange = readonly [number, number];

const HOUR = /^([01]\d|2[0-3]):([0-5]\d)$|^24:00$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function minuteOfDay(text: string, what: string): number {
  const match = HOUR.exec(text);
  if (!match) throw new RangeError(`${what} must be "HH:MM" (00:00 to 24:00), got "${text}"`);
  return match[1] === undefined ? 24 * 60 : Number(match[1]) * 60 + Number(match[2]);
}

/**
 * Each weekday's working minutes, sorted, with overlapping or touching ranges merged so that
 * time two schedules share counts once. A range that does not end after it starts is empty.
 */
export function workingWeek(schedules: readonly ScheduleInput[]): MinuteRange[][] {
  const week: [number, number][][] = Array.from({ length: 7 }, () => []);
  for (const schedule of schedules) {
    if (!Number.isInteger(schedule.day) || schedule.day < 0 || schedule.day > 6) {
      throw new RangeError(`day must be an integer from 0 (Sunday) to 6 (Saturday), got ${schedule.day}`);
    }
    const start = minuteOfDay(schedule.startHour, 'startHour');
    const end = minuteOfDay(schedule.endHour, 'endHour');
    if (end > start) week[schedule.day]!.push([start, end]);
  }
  return week.map((ranges) => {
    ranges.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const [start, end] of ranges) {
      const last = merged[merged.length - 1];
      if (last && start <= last[1]) last[1] = Math.max(last[1], end);
      else merged.push([start, end]);
    }
    return merged;
  });
}

/** The day number (days since 1970-01-01) of a `YYYY-MM-DD` date. */
export function dayNumber(text: string, what: string): number {
  const match = DATE.exec(text);
  const date = new Date(0);
  if (match) date.setUTCFullYear(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  // A date that rolls over (2024-02-30) does not read back the same.
  if (!match || date.toISOString().slice(0, 10) !== text)
    throw new RangeError(`${what} must be a date "YYYY-MM-DD", got "${text}"`);
  return Math.floor(date.getTime() / 86_400_000);
}

/** Holidays as inclusive ranges of day numbers; a holiday that ends before it starts is empty. */
export function holidayDays(holidays: readonly HolidayInput[]): (readonly [number, number])[] {
  return holidays
    .map((holiday) => [dayNumber(holiday.startDate, 'startDate'), dayNumber(holiday.endDate, 'endDate')] as const)
    .filter(([first, last]) => last >= first);
}

/** 0 Sunday to 6 Saturday: day 0, 1970-01-01, was a Thursday. */
export function weekdayOf(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}
