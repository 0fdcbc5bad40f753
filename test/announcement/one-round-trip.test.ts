// An announcement's create and update are one exchange with the database (one HTTP batch): the rule
// that it expires after it is published is decided in the Worker where the body names both times,
// else checked in the batch against the stored time the update keeps; a refusal answers the same
// 400 as ever and writes nothing (docs/connection-strategy.md, "Writes in one round trip").
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation } from '../support/db';
import { eventsSince, lastEventId } from '../support/events';
import { withRoundTrips } from '../support/round-trips';
import { announcementRows, insertAnnouncement } from './fixtures';

let site: SeededInstallation;
let other: SeededInstallation;
let key: string;
const hoursFromNow = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

beforeAll(async () => {
  site = await newInstallation('announce-trips');
  other = await newInstallation('announce-trips-other');
  key = site.users.owner.apiKey;
});

/** The request's answer and round trips, the credential looked up just before (so the count is the write alone). */
async function tripsOf(path: string, method: string, body: unknown) {
  expect((await api('/v2/me.json', { key })).status).toBe(200);
  return withRoundTrips(path, { key, method, body });
}

describe('announcements in one round trip', () => {
  it('publishes one and moves its expiry, one exchange each, with their events', async () => {
    const mark = await lastEventId(site.id);
    const made = await tripsOf('/v2/announcements.json', 'POST', {
      announcement: { title: 'Trip', body: 'One exchange', expiresAt: hoursFromNow(2) },
    });
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(1);
    const id = made.answer.body.announcement.id as number;
    const moved = await tripsOf(`/v2/announcements/${id}.json`, 'PATCH', {
      announcement: { expiresAt: hoursFromNow(5) },
    });
    expect(moved.answer.status, moved.answer.text).toBe(200);
    expect(moved.trips).toBe(1);
    expect(Date.parse(moved.answer.body.announcement.expiresAt)).toBeGreaterThan(Date.now() + 4 * 3_600_000);
    expect((await eventsSince(site.id, mark)).map((e) => `${e.recordType} ${e.recordId} ${e.kind}`)).toEqual([
      `announcements ${id} created`,
      `announcements ${id} updated`,
    ]);
  });

  it('refuses an expiry before publication: in the Worker when the body names both, in one exchange over the stored time otherwise; 404 in one exchange', async () => {
    const id = await insertAnnouncement(site.id, { title: 'Stored', publishedAgo: '1 hour', expiresIn: '1 hour' });
    const theirs = await insertAnnouncement(other.id, { title: 'Theirs' });
    const mark = await lastEventId(site.id);
    const before = await announcementRows([site.id, other.id]);
    for (const [path, method, announcement, status, source, detail, trips] of [
      [
        '/v2/announcements.json',
        'POST',
        { title: 'No', body: 'No', expiresAt: hoursFromNow(-1) },
        400,
        'announcement.expiresAt',
        'the announcement must expire after it is published',
        0,
      ],
      [
        `/v2/announcements/${id}.json`,
        'PATCH',
        { publishedAt: hoursFromNow(3), expiresAt: hoursFromNow(2) },
        400,
        'announcement.expiresAt',
        'the announcement must expire after it is published',
        0,
      ],
      [
        `/v2/announcements/${id}.json`,
        'PATCH',
        { expiresAt: hoursFromNow(-2) },
        400,
        'announcement.expiresAt',
        'the announcement must expire after it is published',
        1,
      ],
      [
        `/v2/announcements/${id}.json`,
        'PATCH',
        { publishedAt: hoursFromNow(2) },
        400,
        'announcement.publishedAt',
        'the announcement must expire after it is published',
        1,
      ],
      [
        `/v2/announcements/${theirs}.json`,
        'PATCH',
        { expiresAt: hoursFromNow(-2) },
        404,
        'id',
        `announcement ${theirs} not found`,
        1,
      ],
    ] as const) {
      const { answer, trips: made } = await tripsOf(path, method, { announcement });
      expect(answer.status, answer.text).toBe(status);
      expect(answer.body.errors).toEqual([{ code: status === 400 ? 'invalid' : 'notFound', source, detail }]);
      expect(made, `${method} ${path} ${JSON.stringify(announcement)}`).toBe(trips);
    }
    expect(await announcementRows([site.id, other.id])).toEqual(before);
    expect(await eventsSince(site.id, mark)).toEqual([]);
  });
});
