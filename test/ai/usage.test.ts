import { describe, expect, it } from 'vitest';
import { billingPeriod } from '../../src/resources/ai/billing-period';
import { api } from '../support/api';
import { runCron } from '../support/cron';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { addUsage, setBilling, utcDateFromToday } from './support';

// The route answers for the period the real clock is in, so these cycles are set relative to today.
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const hourAgo = () => new Date(Date.now() - 3_600_000);

async function usage(key: string) {
  const response = await api('/v2/ai/usage.json', { key });
  expect(response.status, response.text).toBe(200);
  expect(Object.keys(response.body)).toEqual(['aiusage', 'included']);
  expect(response.body.included).toEqual({});
  return response.body.aiusage;
}

/**
 * The answer before the metering measured the period. Other files fire the cron at any moment and
 * it measures every installation: when one did in between, the row is removed and we ask again.
 */
async function usageBeforeMeasurement(installationId: number, periodStart: string, key: string) {
  for (let attempt = 0; attempt < 5; attempt++) {
    await rows(`DELETE FROM ai_usage_periods WHERE installation_id = $1 AND period_start = $2`, [
      installationId,
      periodStart,
    ]);
    const answer = await usage(key);
    if (answer.measuredAt === null) return answer;
    // Only a measurement that really happened may show.
    expect(
      await rows(`SELECT 1 FROM ai_usage_periods WHERE installation_id = $1 AND period_start = $2`, [
        installationId,
        periodStart,
      ]),
    ).toHaveLength(1);
  }
  throw new Error('the usage was measured each time before it could be read unmeasured');
}

describe('GET /v2/ai/usage.json', () => {
  it("answers the current period's measurement to every role, both streams together", async () => {
    const site = await newInstallation('ai-usage');
    const anchor = utcDateFromToday(-40);
    await setBilling(site.id, { anchor, interval: 'month', allowance: 20 });
    const expected = billingPeriod(anchor, 'month', new Date());
    await addUsage(site.id, 'replies', hourAgo(), 12);
    await addUsage(site.id, 'chat', hourAgo(), 4);
    await addUsage(site.id, 'chat', `${expected.periodStart}T00:00:00.000Z`);
    await addUsage(site.id, 'replies', new Date(Date.parse(`${expected.periodStart}T00:00:00.000Z`) - 1), 30); // the period before

    const measured = new Date();
    await runCron(measured);

    for (const role of ['owner', 'admin', 'agent', 'collaborator'] as const) {
      const answer = await usage(site.users[role].apiKey);
      expect(answer, role).toEqual({
        state: 'warning',
        allowance: 20,
        used: 17,
        remaining: 3,
        percentUsed: 85,
        streams: { replies: 12, chat: 5 },
        periodStart: expected.periodStart,
        resetDate: expected.resetDate,
        measuredAt: expect.stringMatching(ISO_TIME),
      });
      // This run's measurement, or a later one by another file's run: never an earlier one.
      expect(answer.measuredAt >= measured.toISOString(), answer.measuredAt).toBe(true);
    }
  });

  it('says warning from exactly 80% and ok below, with one decimal', async () => {
    const warning = await newInstallation('ai-usage');
    const ok = await newInstallation('ai-usage');
    const anchor = utcDateFromToday(-40);
    await setBilling(warning.id, { anchor, interval: 'month', allowance: 20 });
    await setBilling(ok.id, { anchor, interval: 'month', allowance: 3 });
    await addUsage(warning.id, 'replies', hourAgo(), 16);
    await addUsage(ok.id, 'chat', hourAgo(), 1);

    await runCron(new Date());

    expect(await usage(warning.users.agent.apiKey)).toMatchObject({
      state: 'warning',
      used: 16,
      remaining: 4,
      percentUsed: 80,
    });
    expect(await usage(ok.users.agent.apiKey)).toMatchObject({
      state: 'ok',
      used: 1,
      remaining: 2,
      percentUsed: 33.3,
      streams: { replies: 0, chat: 1 },
    });
  });

  it('shows usage beyond the allowance: remaining 0, more than 100%', async () => {
    const site = await newInstallation('ai-usage');
    await setBilling(site.id, { anchor: utcDateFromToday(-40), interval: 'month', allowance: 10 });
    await addUsage(site.id, 'replies', hourAgo(), 12);

    await runCron(new Date());

    expect(await usage(site.users.owner.apiKey)).toMatchObject({
      state: 'exhausted',
      allowance: 10,
      used: 12,
      remaining: 0,
      percentUsed: 120,
    });
  });

  it('with no add-on (allowance 0): exhausted, nothing remaining, 0%; a yearly cycle resets on the anniversary', async () => {
    const site = await newInstallation('ai-usage');
    const anchor = utcDateFromToday(-40);
    await setBilling(site.id, { anchor, interval: 'year', allowance: 0 });
    await addUsage(site.id, 'chat', hourAgo(), 2);

    await runCron(new Date());

    const answer = await usage(site.users.admin.apiKey);
    const expected = billingPeriod(anchor, 'year', new Date());
    expect(expected.periodStart).toBe(anchor);
    expect(answer).toMatchObject({
      state: 'exhausted',
      allowance: 0,
      used: 2,
      remaining: 0,
      percentUsed: 0,
      streams: { replies: 0, chat: 2 },
      ...expected,
    });
  });

  it('before the first measurement of the period: the period with nothing used, measuredAt null', async () => {
    const site = await newInstallation('ai-usage');
    const anchor = utcDateFromToday(-40);
    await setBilling(site.id, { anchor, interval: 'month', allowance: 50 });
    await addUsage(site.id, 'replies', hourAgo(), 45);
    const noAddOn = await newInstallation('ai-usage');
    await setBilling(noAddOn.id, { anchor, interval: 'month', allowance: 0 });
    const expected = billingPeriod(anchor, 'month', new Date());

    // A measurement of the period before is not this period's.
    const previousPeriod = new Date(Date.parse(`${expected.periodStart}T00:00:00.000Z`) - 60_000);
    await runCron(previousPeriod);
    const previous = billingPeriod(anchor, 'month', previousPeriod);
    expect(previous.resetDate).toBe(expected.periodStart);
    expect(
      await rows(`SELECT replies_used FROM ai_usage_periods WHERE installation_id = $1 AND period_start = $2`, [
        site.id,
        previous.periodStart,
      ]),
    ).toEqual([{ replies_used: 0 }]);
    const before = await usageBeforeMeasurement(site.id, expected.periodStart, site.users.agent.apiKey);
    expect(before).toEqual({
      state: 'ok',
      allowance: 50,
      used: 0,
      remaining: 50,
      percentUsed: 0,
      streams: { replies: 0, chat: 0 },
      ...expected,
      measuredAt: null,
    });
    expect(await usageBeforeMeasurement(noAddOn.id, expected.periodStart, noAddOn.users.agent.apiKey)).toMatchObject({
      state: 'exhausted',
      allowance: 0,
      remaining: 0,
      measuredAt: null,
    });

    await runCron(new Date());
    expect(await usage(site.users.agent.apiKey)).toMatchObject({
      state: 'warning',
      used: 45,
      measuredAt: expect.stringMatching(ISO_TIME),
    });
  });

  it("answers the caller's installation only", async () => {
    const site = await newInstallation('ai-usage');
    const other = await newInstallation('ai-usage');
    const anchor = utcDateFromToday(-40);
    await setBilling(site.id, { anchor, interval: 'month', allowance: 10 });
    await setBilling(other.id, { anchor, interval: 'month', allowance: 10 });
    await addUsage(other.id, 'replies', hourAgo(), 9);

    await runCron(new Date());

    expect(await usage(site.users.agent.apiKey)).toMatchObject({ state: 'ok', used: 0, remaining: 10 });
    expect(await usage(other.users.agent.apiKey)).toMatchObject({ state: 'warning', used: 9, remaining: 1 });
  });

  it('takes includes as single-record reads do: all, or nothing; another name is a 400; other parameters are ignored', async () => {
    const site = await newInstallation('ai-usage');
    const key = site.users.agent.apiKey;
    expect((await api('/v2/ai/usage.json', { key, query: { includes: 'all' } })).status).toBe(200);
    expect((await api('/v2/ai/usage.json', { key, query: { page: 'x' } })).status).toBe(200);
    expectError(await api('/v2/ai/usage.json', { key, query: { includes: 'users' } }), 400, 'includes', /allowed: all/);
  });

  it('needs a valid credential', async () => {
    const response = await api('/v2/ai/usage.json');
    expectError(response, 401);
    expect(response.headers.get('www-authenticate')).toMatch(/Bearer/);
    expectError(await api('/v2/ai/usage.json', { key: 'hd_notakeynotakeynotakeynotakeynotakeynota' }), 401);
  });

  it('is in the OpenAPI document', async () => {
    const { paths, components } = (await api('/v2/openapi.json')).body;
    const operation = paths['/v2/ai/usage.json'].get;
    expect(Object.keys(operation.responses)).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    expect(components.schemas.AIUsage.properties.state.enum).toEqual(['ok', 'warning', 'exhausted']);
  });
});
