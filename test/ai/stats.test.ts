import { describe, expect, it } from 'vitest';
import { replyOutcome, textSimilarity } from '../../src/lib/text-similarity';
import { billingPeriod } from '../../src/resources/ai/billing-period';
import { api } from '../support/api';
import { newInstallation } from '../support/db';
import { expectError } from '../support/errors';
import { addMessage, newConversation, setBilling, utcDateFromToday } from './support';

// The route answers for the period the real clock is in, so these cycles are set relative to today.
const hourAgo = () => new Date(Date.now() - 3_600_000);

async function stats(key: string) {
  const response = await api('/v2/ai/stats.json', { key });
  expect(response.status, response.text).toBe(200);
  expect(Object.keys(response.body)).toEqual(['aieffectiveness', 'included']);
  expect(response.body.included).toEqual({});
  return response.body.aieffectiveness;
}

async function siteWithCycle(interval: 'month' | 'year' = 'month') {
  const site = await newInstallation('ai-stats');
  const anchor = utcDateFromToday(-40);
  await setBilling(site.id, { anchor, interval, allowance: 100 });
  return { site, period: billingPeriod(anchor, interval, new Date()), conversation: await newConversation(site.id) };
}

describe('GET /v2/ai/stats.json', () => {
  it('reports zeroes when no reply came from an AI draft this period', async () => {
    const { site, period } = await siteWithCycle();
    for (const role of ['owner', 'admin', 'agent', 'collaborator'] as const) {
      expect(await stats(site.users[role].apiKey), role).toEqual({
        avgSimilarity: 0,
        sentAsIs: 0,
        edited: 0,
        rewritten: 0,
        repliesCount: 0,
        periodStart: period.periodStart,
        resetDate: period.resetDate,
      });
    }
  });

  it('shares add up to 100 with a third each; only live agent replies from a draft, sent this period, count', async () => {
    const { site, period, conversation } = await siteWithCycle();
    const periodStart = `${period.periodStart}T00:00:00.000Z`;
    await addMessage(site.id, conversation, { sentAt: periodStart, aiSimilarity: 100 });
    await addMessage(site.id, conversation, { sentAt: hourAgo(), aiSimilarity: 75 });
    await addMessage(site.id, conversation, { sentAt: hourAgo(), aiSimilarity: 20 });
    // None of these:
    await addMessage(site.id, conversation, { sentAt: new Date(Date.parse(periodStart) - 1), aiSimilarity: 0 }); // the period before
    await addMessage(site.id, conversation, { sentAt: hourAgo(), aiSimilarity: 0, state: 'deleted' });
    await addMessage(site.id, conversation, { sentAt: hourAgo(), aiDraft: null, aiSimilarity: null }); // written by hand
    await addMessage(site.id, conversation, { sentAt: hourAgo(), author: 'ai', aiDraft: null, aiSimilarity: null });
    await addMessage(site.id, conversation, { sentAt: hourAgo(), author: 'contact', aiSimilarity: 0 });
    await addMessage(site.id, conversation, { sentAt: hourAgo(), aiDraft: 'a draft', aiSimilarity: null }); // similarity never stored
    const other = await siteWithCycle();
    await addMessage(other.site.id, other.conversation, { sentAt: hourAgo(), aiSimilarity: 0 });

    expect(await stats(site.users.agent.apiKey)).toEqual({
      avgSimilarity: 65,
      sentAsIs: 33.4,
      edited: 33.3,
      rewritten: 33.3,
      repliesCount: 3,
      periodStart: period.periodStart,
      resetDate: period.resetDate,
    });
    expect(await stats(other.site.users.agent.apiKey)).toMatchObject({
      avgSimilarity: 0,
      sentAsIs: 0,
      edited: 0,
      rewritten: 100,
      repliesCount: 1,
    });
  });

  it("classes replies with replyOutcome's thresholds, at their edges", async () => {
    const { site, conversation } = await siteWithCycle('year');
    const similarities = [0, 49.9, 50, 99.9, 100, 100, 100];
    for (const aiSimilarity of similarities)
      await addMessage(site.id, conversation, { sentAt: hourAgo(), aiSimilarity });
    const outcomes = similarities.map(replyOutcome);
    expect([
      outcomes.filter((o) => o === 'sentAsIs').length,
      outcomes.filter((o) => o === 'edited').length,
      outcomes.filter((o) => o === 'rewritten').length,
    ]).toEqual([3, 2, 2]);

    // 3/7, 2/7, 2/7: 42.857, 28.571, 28.571; the two missing tenths go to the larger remainders.
    expect(await stats(site.users.agent.apiKey)).toMatchObject({
      sentAsIs: 42.8,
      edited: 28.6,
      rewritten: 28.6,
      repliesCount: 7,
      avgSimilarity: 71.4,
    });
  });

  it('averages the stored similarities of real drafts, to one decimal', async () => {
    const { site, conversation } = await siteWithCycle();
    const replies = [
      ['Your refund is on its way.', 'Your refund is on its way.'],
      ['Your refund is on its way.', 'Your refund is on its way today.'],
      ['Your refund is on its way.', 'We have refunded you, it takes a few days.'],
    ] as const;
    for (const [draft, sent] of replies) {
      await addMessage(site.id, conversation, {
        sentAt: hourAgo(),
        aiDraft: draft,
        message: sent,
        aiSimilarity: textSimilarity(draft, sent),
      });
    }
    const similarities = replies.map(([draft, sent]) => textSimilarity(draft, sent));
    const mean = Math.round((similarities.reduce((sum, value) => sum + value, 0) / similarities.length) * 10) / 10;

    const answer = await stats(site.users.owner.apiKey);
    expect(answer.avgSimilarity).toBe(mean);
    expect(answer).toMatchObject({ sentAsIs: 33.4, edited: 33.3, rewritten: 33.3, repliesCount: 3 });
  });

  it('takes includes as single-record reads do: all, or nothing; another name is a 400', async () => {
    const { site } = await siteWithCycle();
    const key = site.users.agent.apiKey;
    expect((await api('/v2/ai/stats.json', { key, query: { includes: 'all' } })).status).toBe(200);
    expectError(await api('/v2/ai/stats.json', { key, query: { includes: 'users' } }), 400, 'includes', /allowed: all/);
  });

  it('needs a valid credential', async () => {
    expectError(await api('/v2/ai/stats.json'), 401);
    expectError(await api('/v2/ai/stats.json', { key: 'hd_notakeynotakeynotakeynotakeynotakeynota' }), 401);
  });

  it('is in the OpenAPI document', async () => {
    const { paths, components } = (await api('/v2/openapi.json')).body;
    expect(Object.keys(paths['/v2/ai/stats.json'].get.responses)).toEqual([
      '200',
      '400',
      '401',
      '403',
      '429',
      '500',
      '503',
    ]);
    expect(Object.keys(components.schemas.AIEffectiveness.properties)).toEqual([
      'avgSimilarity',
      'sentAsIs',
      'edited',
      'rewritten',
      'repliesCount',
      'periodStart',
      'resetDate',
    ]);
  });
});
