import { describe, expect, it } from 'vitest';
import { billingPeriod, type BillingInterval } from '../../src/resources/ai/billing-period';

const at = (iso: string) => new Date(iso);
const period = (anchor: string, interval: BillingInterval, when: string) => billingPeriod(anchor, interval, at(when));

describe('billingPeriod, monthly', () => {
  it('starts on the latest payment date and resets on the next', () => {
    expect(period('2026-01-15', 'month', '2026-03-20T10:00:00Z')).toEqual({
      periodStart: '2026-03-15',
      resetDate: '2026-04-15',
    });
    expect(period('2026-01-15', 'month', '2026-01-15T10:00:00Z')).toEqual({
      periodStart: '2026-01-15',
      resetDate: '2026-02-15',
    });
  });

  it('moves to the next period exactly at midnight UTC of a payment date', () => {
    expect(period('2026-01-15', 'month', '2026-03-15T00:00:00.000Z')).toEqual({
      periodStart: '2026-03-15',
      resetDate: '2026-04-15',
    });
    expect(period('2026-01-15', 'month', '2026-03-14T23:59:59.999Z')).toEqual({
      periodStart: '2026-02-15',
      resetDate: '2026-03-15',
    });
  });

  it('reads the moment in UTC, not in the offset it was written with', () => {
    expect(period('2026-01-15', 'month', '2026-03-14T23:30:00-02:00')).toEqual({
      periodStart: '2026-03-15',
      resetDate: '2026-04-15',
    });
    expect(period('2026-01-15', 'month', '2026-03-15T01:30:00+02:00')).toEqual({
      periodStart: '2026-02-15',
      resetDate: '2026-03-15',
    });
  });

  it('pays an anchor on the 31st on the last day of shorter months, and on the 31st again after them', () => {
    const anchor = '2026-01-31';
    expect(period(anchor, 'month', '2026-02-27T12:00:00Z')).toEqual({
      periodStart: '2026-01-31',
      resetDate: '2026-02-28',
    });
    expect(period(anchor, 'month', '2026-02-28T00:00:00Z')).toEqual({
      periodStart: '2026-02-28',
      resetDate: '2026-03-31',
    });
    expect(period(anchor, 'month', '2026-03-30T23:59:59Z')).toEqual({
      periodStart: '2026-02-28',
      resetDate: '2026-03-31',
    });
    expect(period(anchor, 'month', '2026-03-31T00:00:00Z')).toEqual({
      periodStart: '2026-03-31',
      resetDate: '2026-04-30',
    });
    expect(period(anchor, 'month', '2026-05-01T00:00:00Z')).toEqual({
      periodStart: '2026-04-30',
      resetDate: '2026-05-31',
    });
  });

  it('pays on 29 February in a leap year', () => {
    expect(period('2027-01-31', 'month', '2028-02-28T12:00:00Z')).toEqual({
      periodStart: '2028-01-31',
      resetDate: '2028-02-29',
    });
    expect(period('2027-01-31', 'month', '2028-02-29T12:00:00Z')).toEqual({
      periodStart: '2028-02-29',
      resetDate: '2028-03-31',
    });
    expect(period('2026-01-30', 'month', '2026-03-01T00:00:00Z')).toEqual({
      periodStart: '2026-02-28',
      resetDate: '2026-03-30',
    });
  });

  it('crosses the year end', () => {
    expect(period('2025-12-31', 'month', '2026-01-15T00:00:00Z')).toEqual({
      periodStart: '2025-12-31',
      resetDate: '2026-01-31',
    });
    expect(period('2025-12-31', 'month', '2026-12-31T08:00:00Z')).toEqual({
      periodStart: '2026-12-31',
      resetDate: '2027-01-31',
    });
    expect(period('2025-03-10', 'month', '2027-01-05T00:00:00Z')).toEqual({
      periodStart: '2026-12-10',
      resetDate: '2027-01-10',
    });
  });

  it('before the anchor is the first period', () => {
    expect(period('2026-05-20', 'month', '2026-05-19T23:59:59.999Z')).toEqual({
      periodStart: '2026-05-20',
      resetDate: '2026-06-20',
    });
    expect(period('2026-05-20', 'month', '2024-01-01T00:00:00Z')).toEqual({
      periodStart: '2026-05-20',
      resetDate: '2026-06-20',
    });
  });
});

describe('billingPeriod, yearly', () => {
  it('starts on the anniversary and resets on the next one', () => {
    expect(period('2025-06-10', 'year', '2026-06-09T23:59:59.999Z')).toEqual({
      periodStart: '2025-06-10',
      resetDate: '2026-06-10',
    });
    expect(period('2025-06-10', 'year', '2026-06-10T00:00:00.000Z')).toEqual({
      periodStart: '2026-06-10',
      resetDate: '2027-06-10',
    });
    expect(period('2025-06-10', 'year', '2030-01-01T00:00:00Z')).toEqual({
      periodStart: '2029-06-10',
      resetDate: '2030-06-10',
    });
    expect(period('2025-06-10', 'year', '2025-12-31T00:00:00Z')).toEqual({
      periodStart: '2025-06-10',
      resetDate: '2026-06-10',
    });
  });

  it('pays an anchor on 29 February on 28 February in common years and on the 29th in leap years', () => {
    const anchor = '2024-02-29';
    expect(period(anchor, 'year', '2025-02-27T12:00:00Z')).toEqual({
      periodStart: '2024-02-29',
      resetDate: '2025-02-28',
    });
    expect(period(anchor, 'year', '2025-02-28T00:00:00Z')).toEqual({
      periodStart: '2025-02-28',
      resetDate: '2026-02-28',
    });
    expect(period(anchor, 'year', '2028-02-28T12:00:00Z')).toEqual({
      periodStart: '2027-02-28',
      resetDate: '2028-02-29',
    });
    expect(period(anchor, 'year', '2028-03-01T00:00:00Z')).toEqual({
      periodStart: '2028-02-29',
      resetDate: '2029-02-28',
    });
  });

  it('before the anchor is the first year', () => {
    expect(period('2026-05-20', 'year', '2026-01-01T00:00:00Z')).toEqual({
      periodStart: '2026-05-20',
      resetDate: '2027-05-20',
    });
  });
});

describe('billingPeriod, every day over years', () => {
  const addDays = (day: string, days: number) =>
    new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

  for (const interval of ['month', 'year'] as const) {
    for (const anchor of ['2024-02-29', '2025-01-31', '2025-01-30', '2025-03-31', '2025-08-01', '2025-12-31']) {
      it(`${interval}ly from ${anchor}: each day lies in its period, and periods follow each other`, () => {
        let previous: { periodStart: string; resetDate: string } | undefined;
        for (let day = anchor; day < '2030-01-01'; day = addDays(day, 1)) {
          const current = billingPeriod(anchor, interval, new Date(`${day}T12:00:00Z`));
          expect(current.periodStart <= day && day < current.resetDate, `${day} in ${JSON.stringify(current)}`).toBe(
            true,
          );
          expect(current.periodStart >= anchor).toBe(true);
          if (previous && previous.periodStart !== current.periodStart) {
            expect(current.periodStart, day).toBe(previous.resetDate);
            expect(current.periodStart, 'a period starts on its first day').toBe(day);
          }
          previous = current;
        }
      });
    }
  }
});

describe('billingPeriod input', () => {
  it('refuses an anchor that is not a date', () => {
    expect(() => billingPeriod('2026-1-5', 'month', new Date())).toThrow(/not a date/);
  });
});
