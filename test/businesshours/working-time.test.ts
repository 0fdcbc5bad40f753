// workingMinutesBetween: the working minutes the SLA work counts. Plain unit tests; the
// brute-force reference below counts minute by minute with its own Intl formatter, so the
// day-by-day implementation is checked against the definition, not against itself.
import { describe, expect, it } from 'vitest';
import { addWorkingMinutes, workingMinutesBetween, type WorkingHours } from '../../src/lib/working-time';

const WEEKDAYS = [1, 2, 3, 4, 5];
const ALL_DAYS = [0, 1, 2, 3, 4, 5, 6];

function hours(
  timezoneId: string,
  days: number[],
  startHour: string,
  endHour: string,
  holidays: WorkingHours['holidays'] = [],
): WorkingHours {
  return { timezoneId, schedules: days.map((day) => ({ day, startHour, endHour })), holidays };
}

const at = (iso: string) => new Date(iso);
const minutes = (h: WorkingHours, from: string, to: string) => workingMinutesBetween(h, at(from), at(to));

const WEEKDAY_NUMBERS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

/** The definition, minute by minute: is the local wall clock on a working day and time? */
function bruteForce(h: WorkingHours, from: Date, to: Date): number {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: h.timezoneId,
    hourCycle: 'h23',
    weekday: 'short',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
  let count = 0;
  for (let t = from.getTime(); t < to.getTime(); t += 60_000) {
    const p = Object.fromEntries(format.formatToParts(t).map((part) => [part.type, part.value]));
    const date = `${p.year}-${p.month}-${p.day}`;
    const time = `${p.hour}:${p.minute}`;
    if (h.holidays.some((holiday) => holiday.startDate <= date && date <= holiday.endDate)) continue;
    const day = WEEKDAY_NUMBERS[p.weekday!];
    if (h.schedules.some((s) => s.day === day && s.startHour <= time && time < s.endHour)) count++;
  }
  return count;
}

describe('a plain week (UTC)', () => {
  const office = hours('UTC', WEEKDAYS, '09:00', '17:00');

  it('counts a whole weekday as its schedule', () => {
    expect(minutes(office, '2024-01-08T00:00:00Z', '2024-01-09T00:00:00Z')).toBe(480); // a Monday
    expect(minutes(office, '2024-01-08T00:00:00Z', '2024-01-15T00:00:00Z')).toBe(5 * 480);
  });

  it('counts nothing at the weekend', () => {
    expect(minutes(office, '2024-01-13T00:00:00Z', '2024-01-15T00:00:00Z')).toBe(0);
    expect(minutes(office, '2024-01-12T16:00:00Z', '2024-01-15T10:00:00Z')).toBe(120); // Friday 16:00 to Monday 10:00
  });

  it('cuts partial days at both ends', () => {
    expect(minutes(office, '2024-01-08T15:00:00Z', '2024-01-10T10:30:00Z')).toBe(120 + 480 + 90);
    expect(minutes(office, '2024-01-08T10:00:00Z', '2024-01-08T12:30:00Z')).toBe(150);
    expect(minutes(office, '2024-01-08T07:00:00Z', '2024-01-08T09:00:00Z')).toBe(0);
    expect(minutes(office, '2024-01-08T17:00:00Z', '2024-01-08T23:00:00Z')).toBe(0);
  });

  it('is exact below the minute, so adjacent spans add up', () => {
    expect(minutes(office, '2024-01-08T16:59:30Z', '2024-01-08T17:00:00Z')).toBe(0.5);
    const a = minutes(office, '2024-01-08T10:00:00.250Z', '2024-01-09T11:17:42.5Z');
    const b = minutes(office, '2024-01-09T11:17:42.5Z', '2024-01-10T12:00:00Z');
    expect(a + b).toBeCloseTo(minutes(office, '2024-01-08T10:00:00.250Z', '2024-01-10T12:00:00Z'), 9);
  });

  it('answers 0 when from is not before to', () => {
    expect(minutes(office, '2024-01-09T12:00:00Z', '2024-01-08T12:00:00Z')).toBe(0);
    expect(minutes(office, '2024-01-08T12:00:00Z', '2024-01-08T12:00:00Z')).toBe(0);
  });

  it('answers 0 with no schedules at all', () => {
    expect(
      minutes(
        { timezoneId: 'Europe/Dublin', schedules: [], holidays: [] },
        '2024-01-01T00:00:00Z',
        '2024-06-01T00:00:00Z',
      ),
    ).toBe(0);
  });

  it('counts overlapping schedules of a day once, and joins touching ones', () => {
    const split: WorkingHours = {
      timezoneId: 'UTC',
      schedules: [
        { day: 1, startHour: '09:00', endHour: '12:00' },
        { day: 1, startHour: '11:00', endHour: '14:00' },
        { day: 1, startHour: '14:00', endHour: '15:00' },
        { day: 1, startHour: '10:00', endHour: '10:30' },
        { day: 1, startHour: '16:00', endHour: '16:15' },
      ],
      holidays: [],
    };
    expect(minutes(split, '2024-01-08T00:00:00Z', '2024-01-09T00:00:00Z')).toBe(6 * 60 + 15);
    expect(minutes(split, '2024-01-08T11:30:00Z', '2024-01-08T16:05:00Z')).toBe(210 + 5);
  });

  it('reads 24:00 as the end of the day', () => {
    const late = hours('UTC', [1], '22:00', '24:00');
    expect(minutes(late, '2024-01-08T00:00:00Z', '2024-01-10T00:00:00Z')).toBe(120);
    expect(minutes(late, '2024-01-08T23:30:00Z', '2024-01-09T01:00:00Z')).toBe(30);
  });
});

describe('holidays', () => {
  it('takes whole days off, across several days', () => {
    const office = hours('UTC', WEEKDAYS, '09:00', '17:00', [{ startDate: '2024-12-24', endDate: '2024-12-26' }]);
    // Monday 23rd to Monday 30th: Tuesday to Thursday are off.
    expect(minutes(office, '2024-12-23T00:00:00Z', '2024-12-30T00:00:00Z')).toBe(2 * 480);
    expect(minutes(office, '2024-12-24T10:00:00Z', '2024-12-26T23:00:00Z')).toBe(0);
  });

  it('takes local days off, not UTC ones', () => {
    const allDay = hours('America/New_York', ALL_DAYS, '00:00', '24:00', [
      { startDate: '2024-07-04', endDate: '2024-07-04' },
    ]);
    // 08:00 EDT on July 3rd to 08:00 EDT on July 5th, with July 4th (04:00Z to 04:00Z) off.
    expect(minutes(allDay, '2024-07-03T12:00:00Z', '2024-07-05T12:00:00Z')).toBe(24 * 60);
    expect(minutes(allDay, '2024-07-04T04:00:00Z', '2024-07-05T04:00:00Z')).toBe(0);
    expect(minutes(allDay, '2024-07-04T03:00:00Z', '2024-07-05T05:00:00Z')).toBe(120);
  });

  it('ignores holidays outside the span', () => {
    const office = hours('UTC', WEEKDAYS, '09:00', '17:00', [
      { startDate: '2023-01-01', endDate: '2023-12-31' },
      { startDate: '2025-01-01', endDate: '2025-01-01' },
    ]);
    expect(minutes(office, '2024-01-08T00:00:00Z', '2024-01-09T00:00:00Z')).toBe(480);
  });
});

describe('daylight saving changes', () => {
  it('keeps 09:00-17:00 at 8 hours on the days Europe/Dublin changes', () => {
    const daily = hours('Europe/Dublin', ALL_DAYS, '09:00', '17:00');
    // Spring forward on Sunday 2024-03-31 (01:00 GMT -> 02:00 IST): Saturday to Monday.
    expect(minutes(daily, '2024-03-30T00:00:00Z', '2024-04-01T23:00:00Z')).toBe(3 * 480);
    // On the Sunday itself, 09:00 IST is 08:00Z.
    expect(minutes(daily, '2024-03-31T08:00:00Z', '2024-03-31T16:00:00Z')).toBe(480);
    expect(minutes(daily, '2024-03-31T09:00:00Z', '2024-03-31T17:00:00Z')).toBe(420);
    // Fall back on Sunday 2024-10-27 (02:00 IST -> 01:00 GMT).
    expect(minutes(daily, '2024-10-25T23:00:00Z', '2024-10-29T00:00:00Z')).toBe(3 * 480);
    expect(minutes(daily, '2024-10-27T09:00:00Z', '2024-10-27T17:00:00Z')).toBe(480);
    expect(minutes(daily, '2024-10-26T08:00:00Z', '2024-10-26T16:00:00Z')).toBe(480); // still IST on Saturday
  });

  it('counts a whole day of Europe/Dublin as 23 and 25 hours on the change days', () => {
    const allDay = hours('Europe/Dublin', [0], '00:00', '24:00');
    expect(minutes(allDay, '2024-03-30T00:00:00Z', '2024-04-02T00:00:00Z')).toBe(23 * 60);
    expect(minutes(allDay, '2024-10-26T00:00:00Z', '2024-10-29T00:00:00Z')).toBe(25 * 60);
  });

  it('keeps 09:00-17:00 at 8 hours on the days America/New_York changes', () => {
    const sunday = hours('America/New_York', [0], '09:00', '17:00');
    // 2024-03-10: 02:00 EST -> 03:00 EDT, so 09:00 is 13:00Z; 2024-11-03: 02:00 EDT -> 01:00 EST, 09:00 is 14:00Z.
    expect(minutes(sunday, '2024-03-09T00:00:00Z', '2024-03-12T00:00:00Z')).toBe(480);
    expect(minutes(sunday, '2024-03-10T13:00:00Z', '2024-03-10T21:00:00Z')).toBe(480);
    expect(minutes(sunday, '2024-03-10T14:00:00Z', '2024-03-10T22:00:00Z')).toBe(420);
    expect(minutes(sunday, '2024-11-02T00:00:00Z', '2024-11-05T00:00:00Z')).toBe(480);
    expect(minutes(sunday, '2024-11-03T14:00:00Z', '2024-11-03T22:00:00Z')).toBe(480);
    expect(minutes(sunday, '2024-11-03T13:00:00Z', '2024-11-03T21:00:00Z')).toBe(420);
  });

  it('skips local times that do not exist and counts repeated ones each time (New York)', () => {
    // The skipped hour: 02:30 does not exist on 2024-03-10, so 02:30-10:00 starts when the clock jumps to 03:00.
    expect(
      minutes(hours('America/New_York', [0], '02:30', '10:00'), '2024-03-09T00:00:00Z', '2024-03-12T00:00:00Z'),
    ).toBe(7 * 60);
    expect(
      minutes(hours('America/New_York', [0], '02:00', '03:00'), '2024-03-09T00:00:00Z', '2024-03-12T00:00:00Z'),
    ).toBe(0);
    // The repeated hour: 01:00-02:00 happens twice on 2024-11-03, and so does 01:30-01:45.
    expect(
      minutes(hours('America/New_York', [0], '01:00', '02:00'), '2024-11-02T00:00:00Z', '2024-11-05T00:00:00Z'),
    ).toBe(120);
    expect(
      minutes(hours('America/New_York', [0], '01:30', '01:45'), '2024-11-02T00:00:00Z', '2024-11-05T00:00:00Z'),
    ).toBe(30);
    expect(
      minutes(hours('America/New_York', [0], '00:00', '24:00'), '2024-11-02T00:00:00Z', '2024-11-05T00:00:00Z'),
    ).toBe(25 * 60);
  });

  it('follows a daylight saving change of 30 minutes (Australia/Lord_Howe)', () => {
    const allDay = hours('Australia/Lord_Howe', [0], '00:00', '24:00');
    const office = hours('Australia/Lord_Howe', [0], '09:00', '17:00');
    // 2024-04-07 02:00 (+11:00) -> 01:30 (+10:30); 2024-10-06 02:00 (+10:30) -> 02:30 (+11:00).
    expect(minutes(allDay, '2024-04-05T00:00:00Z', '2024-04-09T00:00:00Z')).toBe(24.5 * 60);
    expect(minutes(allDay, '2024-10-04T00:00:00Z', '2024-10-08T00:00:00Z')).toBe(23.5 * 60);
    expect(minutes(office, '2024-04-05T00:00:00Z', '2024-04-09T00:00:00Z')).toBe(480);
    expect(minutes(office, '2024-10-04T00:00:00Z', '2024-10-08T00:00:00Z')).toBe(480);
    // 09:00 on 2024-10-06 is 22:00Z the day before (+11:00).
    expect(minutes(office, '2024-10-05T22:00:00Z', '2024-10-06T06:00:00Z')).toBe(480);
    expect(minutes(office, '2024-10-05T22:30:00Z', '2024-10-06T06:30:00Z')).toBe(450);
  });
});

describe('zones off the whole hour', () => {
  it('reads schedules in Asia/Kolkata (+05:30)', () => {
    const office = hours('Asia/Kolkata', WEEKDAYS, '09:00', '17:00');
    expect(minutes(office, '2024-01-08T03:30:00Z', '2024-01-08T11:30:00Z')).toBe(480);
    expect(minutes(office, '2024-01-08T03:00:00Z', '2024-01-08T11:00:00Z')).toBe(450);
    expect(minutes(office, '2024-01-07T18:30:00Z', '2024-01-08T18:30:00Z')).toBe(480); // the local Monday
    // Friday 17:00 IST to Monday 09:00 IST is all weekend.
    expect(minutes(office, '2024-01-12T11:30:00Z', '2024-01-15T03:30:00Z')).toBe(0);
  });
});

describe('against a minute-by-minute reference', () => {
  const cases: [string, WorkingHours, string, string][] = [
    [
      'New York over the March change, with a holiday and split days',
      {
        timezoneId: 'America/New_York',
        schedules: [
          ...WEEKDAYS.map((day) => ({ day, startHour: '08:30', endHour: '12:00' })),
          ...WEEKDAYS.map((day) => ({ day, startHour: '11:30', endHour: '17:45' })),
          { day: 0, startHour: '01:15', endHour: '03:30' },
          { day: 6, startHour: '22:00', endHour: '24:00' },
        ],
        holidays: [
          { startDate: '2024-03-01', endDate: '2024-03-04' },
          { startDate: '2024-03-15', endDate: '2024-03-15' },
        ],
      },
      '2024-02-25T07:13:00Z',
      '2024-03-24T19:41:00Z',
    ],
    [
      'Dublin over the October change',
      {
        timezoneId: 'Europe/Dublin',
        schedules: [
          ...ALL_DAYS.map((day) => ({ day, startHour: '00:45', endHour: '02:30' })),
          ...WEEKDAYS.map((day) => ({ day, startHour: '09:00', endHour: '18:00' })),
        ],
        holidays: [{ startDate: '2024-10-28', endDate: '2024-10-28' }],
      },
      '2024-10-13T00:00:00Z',
      '2024-11-03T00:00:00Z',
    ],
    [
      'Lord Howe over the October change',
      {
        timezoneId: 'Australia/Lord_Howe',
        schedules: [
          ...ALL_DAYS.map((day) => ({ day, startHour: '01:50', endHour: '02:40' })),
          { day: 3, startHour: '00:00', endHour: '24:00' },
        ],
        holidays: [],
      },
      '2024-09-22T05:05:00Z',
      '2024-10-20T05:05:00Z',
    ],
    [
      'Santiago, whose clocks change at midnight',
      {
        timezoneId: 'America/Santiago',
        schedules: ALL_DAYS.map((day) => ({ day, startHour: '00:00', endHour: '06:00' })),
        holidays: [{ startDate: '2024-09-10', endDate: '2024-09-11' }],
      },
      '2024-08-30T00:00:00Z',
      '2024-09-20T00:00:00Z',
    ],
    [
      'Kolkata, three weeks with a holiday',
      {
        timezoneId: 'Asia/Kolkata',
        schedules: WEEKDAYS.map((day) => ({ day, startHour: '09:30', endHour: '18:00' })),
        holidays: [{ startDate: '2024-01-26', endDate: '2024-01-26' }],
      },
      '2024-01-10T10:00:00Z',
      '2024-01-31T10:00:00Z',
    ],
  ];
  for (const [title, workingHours, from, to] of cases) {
    it(title, () => {
      const expected = bruteForce(workingHours, at(from), at(to));
      expect(expected).toBeGreaterThan(0);
      expect(workingMinutesBetween(workingHours, at(from), at(to))).toBe(expected);
    });
  }
});

describe('cost and refusals', () => {
  it('counts a year in a few milliseconds, not minute by minute', () => {
    const office = hours('Europe/Dublin', WEEKDAYS, '09:00', '17:00', [
      { startDate: '2024-12-25', endDate: '2024-12-26' },
    ]);
    const started = performance.now();
    // 2024 has 262 weekdays; Christmas and St Stephen's Day fall on weekdays.
    expect(minutes(office, '2024-01-01T00:00:00Z', '2025-01-01T00:00:00Z')).toBe((262 - 2) * 480);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('throws RangeError for what no stored business hours can hold', () => {
    const ok = hours('UTC', [1], '09:00', '17:00');
    const from = at('2024-01-01T00:00:00Z');
    const to = at('2024-02-01T00:00:00Z');
    expect(() => workingMinutesBetween({ ...ok, timezoneId: 'Mars/Olympus_Mons' }, from, to)).toThrow(RangeError);
    expect(() => workingMinutesBetween(hours('UTC', [1], '9:00', '17:00'), from, to)).toThrow(RangeError);
    expect(() => workingMinutesBetween(hours('UTC', [1], '09:00', '24:30'), from, to)).toThrow(RangeError);
    expect(() => workingMinutesBetween(hours('UTC', [7], '09:00', '17:00'), from, to)).toThrow(RangeError);
    expect(() =>
      workingMinutesBetween(
        hours('UTC', [1], '09:00', '17:00', [{ startDate: '2024-02-30', endDate: '2024-03-01' }]),
        from,
        to,
      ),
    ).toThrow(RangeError);
    expect(() => workingMinutesBetween(ok, new Date(Number.NaN), to)).toThrow(RangeError);
  });
});

describe('addWorkingMinutes, the inverse the SLA clocks use', () => {
  const office = hours('UTC', WEEKDAYS, '09:00', '17:00');
  const add = (h: WorkingHours, from: string, m: number) => addWorkingMinutes(h, at(from), m)?.toISOString();

  it('lands inside working time, skipping nights, weekends and holidays', () => {
    expect(add(office, '2024-01-08T10:00:00Z', 60)).toBe('2024-01-08T11:00:00.000Z');
    // Friday 16:30 plus an hour: half an hour on Friday, half on Monday
    expect(add(office, '2024-01-12T16:30:00Z', 60)).toBe('2024-01-15T09:30:00.000Z');
    // starting on a Saturday night
    expect(add(office, '2024-01-13T23:00:00Z', 30)).toBe('2024-01-15T09:30:00.000Z');
    const holidays = hours('UTC', WEEKDAYS, '09:00', '17:00', [{ startDate: '2024-01-15', endDate: '2024-01-16' }]);
    expect(add(holidays, '2024-01-12T16:30:00Z', 60)).toBe('2024-01-17T09:30:00.000Z');
    expect(add(office, '2024-01-08T10:00:00Z', 0)).toBe('2024-01-08T10:00:00.000Z');
  });

  it('is the earliest instant at which workingMinutesBetween reaches the minutes, across zones and clock changes', () => {
    const zones = [
      hours('America/New_York', WEEKDAYS, '08:30', '17:15'),
      hours('Europe/Dublin', ALL_DAYS, '00:00', '24:00'),
      hours('Asia/Kolkata', [0, 3, 6], '22:00', '24:00'),
    ];
    const starts = ['2024-03-08T20:00:00Z', '2024-10-26T23:59:30Z', '2024-11-01T12:34:56.789Z'];
    for (const h of zones) {
      for (const start of starts) {
        for (const m of [1, 45.5, 600, 3000]) {
          const due = addWorkingMinutes(h, at(start), m)!;
          expect(workingMinutesBetween(h, at(start), due), `${h.timezoneId} ${start} +${m}`).toBeGreaterThanOrEqual(m);
          expect(
            workingMinutesBetween(h, at(start), new Date(due.getTime() - 1)),
            `${h.timezoneId} ${start} +${m}`,
          ).toBeLessThan(m);
        }
      }
    }
  });

  it('answers undefined when no working time comes', () => {
    expect(addWorkingMinutes(hours('UTC', [], '09:00', '17:00'), at('2024-01-08T10:00:00Z'), 60)).toBeUndefined();
    const forever = hours('UTC', WEEKDAYS, '09:00', '17:00', [{ startDate: '2024-01-01', endDate: '2034-01-01' }]);
    expect(addWorkingMinutes(forever, at('2024-01-08T10:00:00Z'), 60)).toBeUndefined();
  });
});

describe('addWorkingMinutes over long spans', () => {
  it('counts a year of working minutes out, exactly at the boundary', () => {
    const office = hours('Europe/Berlin', WEEKDAYS, '09:00', '17:00', [
      { startDate: '2027-12-24', endDate: '2028-01-01' },
    ]);
    const due = addWorkingMinutes(office, at('2026-11-24T08:00:00Z'), 525_600)!;
    expect(workingMinutesBetween(office, at('2026-11-24T08:00:00Z'), due)).toBe(525_600);
    expect(workingMinutesBetween(office, at('2026-11-24T08:00:00Z'), new Date(due.getTime() - 1))).toBeLessThan(
      525_600,
    );
  });
});
