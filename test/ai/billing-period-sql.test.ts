import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { billingPeriod, billingPeriodSql, type BillingInterval } from '../../src/resources/ai/billing-period';
import { rows } from '../support/db';

const dialect = new PgDialect();

/** `billingPeriodSql` run by Postgres over many cycles and moments in one statement. */
async function periodsInSql(cases: { anchor: string; interval: BillingInterval; at: Date }[]) {
  const query = dialect.sqlToQuery(sql`
    SELECT to_char(p.period_start, 'YYYY-MM-DD') AS "periodStart", to_char(p.reset_date, 'YYYY-MM-DD') AS "resetDate"
    FROM unnest(${sql.param(cases.map((c) => c.anchor))}::date[],
                ${sql.param(cases.map((c) => c.interval))}::text[],
                ${sql.param(cases.map((c) => c.at.toISOString()))}::timestamptz[]) WITH ORDINALITY AS t(anchor, billing_interval, at, n)
    CROSS JOIN LATERAL ${billingPeriodSql(sql`t.anchor`, sql`t.billing_interval`, sql`t.at`)} p
    ORDER BY t.n`);
  return rows<{ periodStart: string; resetDate: string }>(query.sql, query.params);
}

const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

describe('billingPeriodSql', () => {
  it('gives the same periods as billingPeriod, every day from before the anchor to years after it', async () => {
    const cases: { anchor: string; interval: BillingInterval; at: Date }[] = [];
    const anchors = ['2024-02-29', '2025-01-31', '2025-01-30', '2025-03-31', '2025-08-01', '2025-12-31', '2026-06-15'];
    for (const interval of ['month', 'year'] as const) {
      for (const anchor of anchors) {
        for (let day = '2024-01-01'; day < '2029-04-01'; day = addDays(day, 1)) {
          cases.push({ anchor, interval, at: new Date(`${day}T00:00:00.000Z`) });
          cases.push({ anchor, interval, at: new Date(`${day}T23:59:59.999Z`) });
        }
      }
    }
    const fromSql = await periodsInSql(cases);
    expect(fromSql).toHaveLength(cases.length);
    const mismatches = cases
      .map((c, index) => ({ ...c, sql: fromSql[index], ts: billingPeriod(c.anchor, c.interval, c.at) }))
      .filter((c) => c.sql?.periodStart !== c.ts.periodStart || c.sql?.resetDate !== c.ts.resetDate);
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('gives the documented answers on the edge cases', async () => {
    const answers = await periodsInSql([
      { anchor: '2026-01-31', interval: 'month', at: new Date('2026-02-28T00:00:00Z') },
      { anchor: '2024-02-29', interval: 'year', at: new Date('2025-03-01T00:00:00Z') },
      { anchor: '2026-05-20', interval: 'month', at: new Date('2026-01-01T00:00:00Z') },
    ]);
    expect(answers).toEqual([
      { periodStart: '2026-02-28', resetDate: '2026-03-31' },
      { periodStart: '2025-02-28', resetDate: '2026-02-28' },
      { periodStart: '2026-05-20', resetDate: '2026-06-20' },
    ]);
  });
});
