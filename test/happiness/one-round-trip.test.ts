// A customer's answer to a satisfaction survey, counted in exchanges with the database (the
// request log's `dbRoundTrips`): the survey read (its link names the survey alone, not its
// installation), then one batch: the ticket locked, the option checked, the live rating changed or
// else made, the survey read back. A refused answer is the same 400 in the same exchanges, and changes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { drained, eventsSince, lastEventId } from '../support/events';
import { withRoundTrips } from '../support/round-trips';

let site: SeededInstallation;
let admin: string;
let options: { id: number }[];
let path: string;
let ticket: number;

beforeAll(async () => {
  site = await newInstallation('happiness-trips');
  admin = site.users.admin.apiKey;
  const inbox = (
    await api('/v2/inboxes.json', {
      method: 'POST',
      key: admin,
      body: { inbox: { name: 'Asking', email: 'asking@happiness-trips.test', happinessRatingEnabled: true } },
    })
  ).body.inbox.id;
  options = (await api('/v2/happinessratingoptions.json', { key: admin })).body.happinessratingoptions;
  const made = await api('/v2/tickets.json', {
    method: 'POST',
    key: admin,
    body: {
      ticket: {
        subject: 'Rate me',
        inbox,
        agent: site.users.admin.id,
        customer: { email: 'rater@happiness-trips.test' },
        message: 'Hi',
      },
    },
  });
  expect(made.status, made.text).toBe(201);
  ticket = made.body.ticket.id;
  expect(
    (
      await api(`/v2/tickets/${ticket}/messages.json`, {
        method: 'POST',
        key: admin,
        body: { message: 'Done', status: { id: 5 } },
      })
    ).status,
  ).toBe(201);
  path = new URL((await api(`/v2/tickets/${ticket}/happinesssurvey.json`, { key: admin })).body.happinesssurvey.url)
    .pathname;
});

async function answer(body: unknown) {
  await drained(site.id);
  return withRoundTrips(path, { method: 'POST', body });
}

const ratings = () =>
  rows("SELECT option_id, score, comment, agent_id FROM happiness_ratings WHERE ticket_id = $1 AND state = 'active'", [
    ticket,
  ]);

describe("a survey's answer", () => {
  it('is the survey read and one batch, made then changed, with its events drained at once', async () => {
    const mark = await lastEventId(site.id);
    const first = await answer({ option: { id: options[0]!.id }, comment: 'Quick' });
    expect(first.answer.status, first.answer.text).toBe(200);
    expect(first.trips).toBe(2);
    expect(first.answer.body.survey.rating).toEqual({ option: options[0]!.id, comment: 'Quick' });
    expect(await ratings()).toEqual([
      { option_id: options[0]!.id, score: 3, comment: 'Quick', agent_id: site.users.admin.id },
    ]);

    const again = await answer({ option: options[2]!.id });
    expect(again.answer.status, again.answer.text).toBe(200);
    expect(again.trips).toBe(2);
    expect(await ratings()).toEqual([
      { option_id: options[2]!.id, score: 1, comment: '', agent_id: site.users.admin.id },
    ]);
    const events = (await eventsSince(site.id, mark)).filter((e) => e.recordType === 'happinessratings');
    expect(events.map((e) => [e.kind, e.actorSystem])).toEqual([
      ['created', 'survey'],
      ['updated', 'survey'],
    ]);
    expect(events[1]!.data).toMatchObject({
      option: {
        before: { id: options[0]!.id, type: 'happinessratingoptions' },
        after: { id: options[2]!.id, type: 'happinessratingoptions' },
      },
      score: { before: 3, after: 1 },
    });
    await drained(site.id, 5_000);
  });

  it("refuses an option not the installation's in the same exchanges, changing nothing", async () => {
    const before = await ratings();
    const refused = await answer({ option: 987654 });
    expect(refused.answer.status).toBe(400);
    expect(refused.answer.body.errors).toEqual([
      { code: 'invalid', source: 'option', detail: 'no happinessratingoptions 987654 here' },
    ]);
    expect(refused.trips).toBe(2);
    expect(await ratings()).toEqual(before);
  });
});
