import { describe, expect, it } from 'vitest';
import { runCron } from '../support/cron';
import { newInstallation, rows } from '../support/db';
import { addUsage, periodRow, setBilling } from './support';

// A fixed moment, years ahead, so that no other file's cron run measures the same period of
// these installations as of a later moment. The anchors are set relative to it.
const AT = new Date('2031-03-15T10:00:00.000Z');

describe('the metering cron task', () => {
  it('counts both streams in the period, by units, and nothing outside it', async () => {
    const site = await newInstallation('ai-meter');
    await setBilling(site.id, { anchor: '2031-01-10', interval: 'month', allowance: 100 });
    // The period as of AT: [2031-03-10, 2031-04-10).
    await addUsage(site.id, 'replies', '2031-03-10T00:00:00.000Z'); // its first instant
    await addUsage(site.id, 'replies', '2031-03-12T08:00:00.000Z', 25);
    await addUsage(site.id, 'replies', '2031-03-14T08:00:00.000Z', 1, 4); // one event of 4 units
    await addUsage(site.id, 'chat', '2031-03-15T10:00:00.000Z', 20); // exactly at AT
    // Not counted: the previous period, after AT, the next period.
    await addUsage(site.id, 'replies', '2031-03-09T23:59:59.999Z', 5);
    await addUsage(site.id, 'chat', '2031-03-15T10:00:00.001Z', 3);
    await addUsage(site.id, 'chat', '2031-04-10T00:00:00.000Z', 7);

    await runCron(AT);

    expect(await periodRow(site.id, '2031-03-10')).toEqual({
      period_start: '2031-03-10',
      reset_date: '2031-04-10',
      allowance: 100,
      replies_used: 30,
      chat_used: 20,
      state: 'ok',
      measured_at: AT.toISOString(),
    });
  });

  it("does not count another installation's usage", async () => {
    const site = await newInstallation('ai-meter');
    const other = await newInstallation('ai-meter');
    for (const id of [site.id, other.id])
      await setBilling(id, { anchor: '2031-02-20', interval: 'month', allowance: 10 });
    await addUsage(other.id, 'replies', '2031-03-01T00:00:00.000Z', 9);
    await addUsage(other.id, 'chat', '2031-03-02T00:00:00.000Z', 2);

    await runCron(AT);

    expect(await periodRow(site.id, '2031-02-20')).toMatchObject({ replies_used: 0, chat_used: 0, state: 'ok' });
    expect(await periodRow(other.id, '2031-02-20')).toMatchObject({
      replies_used: 9,
      chat_used: 2,
      state: 'exhausted',
    });
  });

  it('sets the state: ok below 80%, warning from exactly 80%, exhausted when used up, and always with no add-on', async () => {
    const cases = [
      { allowance: 100, replies: 50, chat: 29, state: 'ok' },
      { allowance: 100, replies: 79, chat: 0, state: 'ok' },
      { allowance: 10, replies: 5, chat: 3, state: 'warning' },
      { allowance: 5, replies: 0, chat: 4, state: 'warning' },
      { allowance: 100, replies: 90, chat: 9, state: 'warning' },
      { allowance: 10, replies: 6, chat: 4, state: 'exhausted' },
      { allowance: 10, replies: 12, chat: 0, state: 'exhausted' },
      { allowance: 1, replies: 0, chat: 0, state: 'ok' },
      { allowance: 0, replies: 0, chat: 0, state: 'exhausted' },
      { allowance: 0, replies: 2, chat: 1, state: 'exhausted' },
    ];
    const sites = await Promise.all(
      cases.map(async (setup) => {
        const site = await newInstallation('ai-state');
        await setBilling(site.id, { anchor: '2031-03-01', interval: 'month', allowance: setup.allowance });
        if (setup.replies) await addUsage(site.id, 'replies', '2031-03-02T00:00:00.000Z', setup.replies);
        if (setup.chat) await addUsage(site.id, 'chat', '2031-03-03T00:00:00.000Z', setup.chat);
        return site;
      }),
    );

    await runCron(AT);

    for (const [index, setup] of cases.entries()) {
      expect(await periodRow(sites[index]!.id, '2031-03-01'), JSON.stringify(setup)).toEqual({
        period_start: '2031-03-01',
        reset_date: '2031-04-01',
        allowance: setup.allowance,
        replies_used: setup.replies,
        chat_used: setup.chat,
        state: setup.state,
        measured_at: AT.toISOString(),
      });
    }
  });

  it('follows the billing cycle: a yearly period, an anchor on the 31st, a payment date at midnight', async () => {
    const yearly = await newInstallation('ai-cycle');
    await setBilling(yearly.id, { anchor: '2029-07-20', interval: 'year', allowance: 1000 });
    await addUsage(yearly.id, 'replies', '2030-07-20T00:00:00.000Z', 3); // the period's first day
    await addUsage(yearly.id, 'chat', '2031-01-01T00:00:00.000Z', 2);
    await addUsage(yearly.id, 'chat', '2030-07-19T23:59:59.999Z', 50); // the year before
    const lastDay = await newInstallation('ai-cycle');
    await setBilling(lastDay.id, { anchor: '2030-12-31', interval: 'month', allowance: 10 });
    await addUsage(lastDay.id, 'replies', '2031-02-28T00:00:00.000Z', 1);
    await addUsage(lastDay.id, 'replies', '2031-02-27T23:00:00.000Z', 4); // the January period

    const at = new Date('2031-03-02T00:00:00.000Z');
    await runCron(at);
    // A payment date at midnight: as of that instant, the new period has begun.
    const midnight = await newInstallation('ai-cycle');
    await setBilling(midnight.id, { anchor: '2030-11-02', interval: 'month', allowance: 10 });
    await addUsage(midnight.id, 'chat', '2031-03-01T23:59:59.999Z', 6);
    await runCron(at);

    expect(await periodRow(yearly.id, '2030-07-20')).toMatchObject({
      reset_date: '2031-07-20',
      replies_used: 3,
      chat_used: 2,
      state: 'ok',
    });
    expect(await periodRow(lastDay.id, '2031-02-28')).toMatchObject({
      reset_date: '2031-03-31',
      replies_used: 1,
      chat_used: 0,
      state: 'ok',
    });
    expect(await periodRow(midnight.id, '2031-03-02')).toMatchObject({
      reset_date: '2031-04-02',
      replies_used: 0,
      chat_used: 0,
      state: 'ok',
    });
    expect(await periodRow(midnight.id, '2031-02-02')).toBeUndefined();
  });

  it('changes nothing when run twice, or side by side, as of the same moment', async () => {
    const site = await newInstallation('ai-twice');
    await setBilling(site.id, { anchor: '2031-01-05', interval: 'month', allowance: 40 });
    await addUsage(site.id, 'replies', '2031-03-06T00:00:00.000Z', 30);
    await addUsage(site.id, 'chat', '2031-03-07T00:00:00.000Z', 2);

    await runCron(AT);
    const first = await periodRow(site.id, '2031-03-05');
    expect(first).toMatchObject({ replies_used: 30, chat_used: 2, state: 'warning', measured_at: AT.toISOString() });
    await runCron(AT);
    expect(await periodRow(site.id, '2031-03-05')).toEqual(first);
    await Promise.all([runCron(AT), runCron(AT), runCron(AT), runCron(AT)]);
    expect(await periodRow(site.id, '2031-03-05')).toEqual(first);
    expect(
      await rows(`SELECT 1 FROM ai_usage_periods WHERE installation_id = $1 AND period_start = '2031-03-05'`, [
        site.id,
      ]),
    ).toHaveLength(1);
  });

  it('keeps the latest measurement: an older moment does not replace it, a later one does, with the allowance of now', async () => {
    const site = await newInstallation('ai-later');
    await setBilling(site.id, { anchor: '2031-01-05', interval: 'month', allowance: 40 });
    await addUsage(site.id, 'replies', '2031-03-06T00:00:00.000Z', 10);
    await addUsage(site.id, 'replies', '2031-03-15T12:00:00.000Z', 25); // after AT

    await runCron(AT);
    const atAT = await periodRow(site.id, '2031-03-05');
    expect(atAT).toMatchObject({ replies_used: 10, state: 'ok' });
    // A run as of an earlier moment of the same period (a late retry) leaves it as it is.
    await runCron(new Date('2031-03-10T00:00:00.000Z'));
    expect(await periodRow(site.id, '2031-03-05')).toEqual(atAT);

    await rows(`UPDATE installations SET ai_allowance = 35 WHERE id = $1`, [site.id]);
    const later = new Date('2031-03-16T00:00:00.000Z');
    await runCron(later);
    expect(await periodRow(site.id, '2031-03-05')).toEqual({
      period_start: '2031-03-05',
      reset_date: '2031-04-05',
      allowance: 35,
      replies_used: 35,
      chat_used: 0,
      state: 'exhausted',
      measured_at: later.toISOString(),
    });
  });
});
