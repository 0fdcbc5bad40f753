// Satisfaction ratings: options, the survey a solving reply carries where the inbox asks for it,
// the customer's answer through the public link, the ticket's rating, search by rating, and the
// summary per agent and per inbox; forged links and bad answers refused.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { eventsSince, lastEventId } from '../support/events';

const SOLVED = 5;

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
let asking: number;
let silent: number;
let options: { id: number; name: string; score: number }[];

const newTicket = async (inbox: number, agent: number | null = site.users.agent.id) => {
  const made = await api('/v2/tickets.json', {
    method: 'POST',
    key: admin,
    body: { ticket: { subject: 'Rate me', inbox, agent, customer: { email: 'rater@happiness.test' }, message: 'Hi' } },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.ticket.id as number;
};
const solve = async (ticket: number) => {
  const replied = await api(`/v2/tickets/${ticket}/messages.json`, {
    method: 'POST',
    key: admin,
    body: { message: 'Done', status: { id: SOLVED } },
  });
  expect(replied.status, replied.text).toBe(201);
};
const linkOf = async (ticket: number) =>
  (await api(`/v2/tickets/${ticket}/happinesssurvey.json`, { key: admin })).body.happinesssurvey;
const pathOf = (url: string) => new URL(url).pathname;

beforeAll(async () => {
  site = await newInstallation('happiness');
  other = await newInstallation('happiness-other');
  admin = site.users.admin.apiKey;
  asking = (
    await api('/v2/inboxes.json', {
      method: 'POST',
      key: admin,
      body: { inbox: { name: 'Asking', email: 'asking@happiness.test', happinessRatingEnabled: true } },
    })
  ).body.inbox.id;
  silent = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
  for (const inbox of [asking, silent]) {
    await api(`/v2/inboxes/${inbox}.json`, {
      method: 'PATCH',
      key: admin,
      body: { inbox: { users: [{ id: site.users.agent.id }] } },
    });
  }
  options = (await api('/v2/happinessratingoptions.json', { key: admin })).body.happinessratingoptions;
});

describe('rating options', () => {
  it("start as Great, Okay and Not good, and are the team admins' to change", async () => {
    expect(options.map((o) => [o.name, o.score])).toEqual([
      ['Great', 3],
      ['Okay', 2],
      ['Not good', 1],
    ]);
    const made = await api('/v2/happinessratingoptions.json', {
      method: 'POST',
      key: admin,
      body: { happinessratingoption: { name: 'Superb', score: 5, displayOrder: 0 } },
    });
    expect(made.status, made.text).toBe(201);
    expectError(
      await api('/v2/happinessratingoptions.json', {
        method: 'POST',
        key: admin,
        body: { happinessratingoption: { name: 'great', score: 1 } },
      }),
      409,
      'happinessratingoption.name',
    );
    expectError(
      await api('/v2/happinessratingoptions.json', {
        method: 'POST',
        key: admin,
        body: { happinessratingoption: { name: 'Odd', score: 'high' } },
      }),
      400,
      'happinessratingoption.score',
    );
    expect(
      (
        await api('/v2/happinessratingoptions.json', {
          method: 'POST',
          key: site.users.agent.apiKey,
          body: { happinessratingoption: { name: 'Mine', score: 1 } },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await api(`/v2/happinessratingoptions/${made.body.happinessratingoption.id}.json`, {
          method: 'DELETE',
          key: admin,
        })
      ).status,
    ).toBe(204);
  });
});

describe('the survey', () => {
  it("goes with the reply that solves a ticket of an inbox that asks, and takes the customer's rating through its link", async () => {
    const ticket = await newTicket(asking);
    expect(await linkOf(ticket)).toBeNull();
    await solve(ticket);
    const survey = await linkOf(ticket);
    expect(survey.url).toMatch(/\/v2\/happiness\/\d+-[0-9a-f]{40}\.json$/);
    expect((await api(`/v2/tickets/${ticket}.json`, { key: admin })).body.ticket.happinessSurveySentAt).not.toBeNull();

    const asked = await api(pathOf(survey.url));
    expect(asked.status, asked.text).toBe(200);
    expect(asked.body.survey).toMatchObject({ ticket: { id: ticket, subject: 'Rate me' }, rating: null });
    expect(asked.body.survey.options.map((o: { name: string }) => o.name)).toEqual(['Great', 'Okay', 'Not good']);

    const mark = await lastEventId(site.id);
    const great = options[0]!.id;
    const answered = await api(pathOf(survey.url), {
      method: 'POST',
      body: { option: { id: great }, comment: 'Quick and kind' },
    });
    expect(answered.status, answered.text).toBe(200);
    expect(answered.body.survey.rating).toEqual({ option: great, comment: 'Quick and kind' });
    const read = (await api(`/v2/tickets/${ticket}.json`, { key: admin })).body.ticket;
    expect(read.happinessRating).toEqual({ id: expect.any(Number), type: 'happinessratings' });
    const rating = (await api(`/v2/happinessratings/${read.happinessRating.id}.json`, { key: admin })).body
      .happinessrating;
    expect(rating).toMatchObject({
      ticket: { id: ticket },
      option: { id: great },
      score: 3,
      comment: 'Quick and kind',
      agent: { id: site.users.agent.id },
      inbox: { id: asking },
    });
    // answering again changes it: an updated event, still one rating
    expect(
      (await api(pathOf(survey.url), { method: 'POST', body: { option: options[2]!.id } })).body.survey.rating.option,
    ).toBe(options[2]!.id);
    const events = (await eventsSince(site.id, mark))
      .filter((e) => e.recordType === 'happinessratings')
      .map((e) => `${e.kind}:${e.actorSystem}`);
    expect(events).toEqual(['created:survey', 'updated:survey']);
    expect(
      await rows("SELECT count(*)::int AS n FROM happiness_ratings WHERE ticket_id = $1 AND state = 'active'", [
        ticket,
      ]),
    ).toEqual([{ n: 1 }]);
  });

  it('is not sent where the inbox does not ask, by a note, or by a reply that does not solve', async () => {
    const quiet = await newTicket(silent);
    await solve(quiet);
    expect(await linkOf(quiet)).toBeNull();
    const noted = await newTicket(asking);
    expect(
      (
        await api(`/v2/tickets/${noted}/messages.json`, {
          method: 'POST',
          key: admin,
          body: { message: 'n', threadType: 'note', status: { id: SOLVED } },
        })
      ).status,
    ).toBe(201);
    expect(await linkOf(noted)).toBeNull();
  });

  it("refuses forged links, other installations' options, closed surveys and bad answers, changing nothing", async () => {
    const ticket = await newTicket(asking);
    await solve(ticket);
    const path = pathOf((await linkOf(ticket)).url);
    const forged = path.replace(/-([0-9a-f])/, (_, c: string) => `-${c === 'a' ? 'b' : 'a'}`);
    expectError(await api(forged), 404, 'token');
    expectError(await api('/v2/happiness/1-abc.json'), 404, 'token');
    expectError(await api(`/v2/happiness/${'9'.repeat(80)}.json`), 400, 'token');
    const theirs = (await api('/v2/happinessratingoptions.json', { key: other.users.admin.apiKey })).body
      .happinessratingoptions[0].id;
    expectError(await api(path, { method: 'POST', body: { option: { id: theirs } } }), 400, 'option');
    expectError(await api(path, { method: 'POST', body: { option: 'great' } }), 400, 'option');
    expectError(
      await api(path, { method: 'POST', body: { option: options[0]!.id, comment: 'x'.repeat(5001) } }),
      400,
      'comment',
    );
    // an unknown property beside a wrong value changes nothing: the 400 names the wrong one
    expectError(await api(path, { method: 'POST', body: { option: 'great', stars: 5 } }), 400, 'option');
    expect(await rows('SELECT count(*)::int AS n FROM happiness_ratings WHERE ticket_id = $1', [ticket])).toEqual([
      { n: 0 },
    ]);
    await rows("UPDATE happiness_surveys SET expires_at = now() - interval '1 minute' WHERE ticket_id = $1", [ticket]);
    expectError(await api(path, { method: 'POST', body: { option: options[0]!.id } }), 409, 'token');
    // teammates of another installation do not see the ticket's survey
    expect((await api(`/v2/tickets/${ticket}/happinesssurvey.json`, { key: other.users.admin.apiKey })).status).toBe(
      404,
    );
  });
});

describe('ratings in search and the summary', () => {
  it('finds tickets by rating and sums them up per agent and per inbox', async () => {
    const summarize = async (groupBy: string) =>
      (await api('/v2/happinessratings/summary.json', { key: admin, query: { groupBy } })).body.summary as any[];
    const before = (await summarize('agent')).find((g) => g.agent?.id === site.users.agent.id)?.ratings ?? 0;
    const rated: number[] = [];
    for (const option of [options[0]!, options[0]!, options[1]!]) {
      const ticket = await newTicket(asking);
      await solve(ticket);
      expect(
        (await api(pathOf((await linkOf(ticket)).url), { method: 'POST', body: { option: option.id } })).status,
      ).toBe(200);
      rated.push(ticket);
    }
    const unassigned = await newTicket(asking, null);
    await solve(unassigned);
    expect(
      (await api(pathOf((await linkOf(unassigned)).url), { method: 'POST', body: { option: options[2]!.id } })).status,
    ).toBe(200);

    const found = await api('/v2/search/tickets.json', { key: admin, query: { rating: String(options[1]!.id) } });
    expect(found.status, found.text).toBe(200);
    expect(found.body.tickets.map((t: { id: number }) => t.id)).toEqual([rated[2]]);

    const agents = await summarize('agent');
    const agent = agents.find((g) => g.agent?.id === site.users.agent.id);
    expect(agent.ratings).toBe(before + 3);
    expect(agents.find((g) => g.agent === null)).toMatchObject({ ratings: 1, averageScore: 1 });
    const inboxes = await summarize('inbox');
    const inbox = inboxes.find((g) => g.inbox.id === asking);
    expect(inbox.options.find((o: any) => o.option.id === options[1]!.id).count).toBeGreaterThanOrEqual(1);
    expectError(
      await api('/v2/happinessratings/summary.json', { key: admin, query: { groupBy: 'weekday' } }),
      400,
      'groupBy',
    );
    // ratings are seen by whoever sees their ticket; the summary is the admins'
    expect(
      (await api('/v2/happinessratings.json', { key: site.users.collaborator.apiKey })).body.happinessratings,
    ).toEqual([]);
    expect(
      (await api('/v2/happinessratings.json', { key: site.users.agent.apiKey })).body.meta.page.count,
    ).toBeGreaterThanOrEqual(4);
    expect(
      (await api('/v2/happinessratings/summary.json', { key: site.users.agent.apiKey, query: { groupBy: 'agent' } }))
        .status,
    ).toBe(403);
    expectError(
      await api('/v2/happinessratings/summary.json', { key: admin, query: { groupBy: 'agent', from: '2026-02-30' } }),
      400,
      'from',
    );
    const empty = await api('/v2/happinessratings/summary.json', {
      key: admin,
      query: { groupBy: 'agent', to: '2001-01-01' },
    });
    expect(empty.body.summary).toEqual([]);
  });
});
