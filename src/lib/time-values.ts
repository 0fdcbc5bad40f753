import { z } from 'zod';

/** Times and days as clients write them, checked so that every one Postgres is handed is one it holds. */

const DAY = /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** A calendar day `YYYY-MM-DD` that exists; not year 0, which Postgres has not. */
export function isCalendarDay(text: string): boolean {
  const match = DAY.exec(text);
  return match !== null && match[1] !== '0000' && Number(match[3]) <= daysInMonth(Number(match[1]), Number(match[2]));
}

/** An RFC 3339 instant with its offset (`Z` or `+01:00`), of a day that exists and a year Postgres holds. */
// `abort`: a text that is no time at all is told so once, not also that its day does not exist
export const instantSchema = z.iso
  .datetime({ offset: true, abort: true })
  .refine((text) => isCalendarDay(text.slice(0, 10)), 'must be a day that exists, from year 1');

export const isInstant = (text: string): boolean => instantSchema.safeParse(text).success;
