// Cancelling a background job is one exchange with the database (one HTTP batch, no WebSocket
// connection) whatever the answer: the cancel with its event, and the job as it then stands,
// which says a 204 for one cancelled before, a 409 for one finished, a 404 for none
// (docs/connection-strategy.md).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { eventsOf } from '../support/events';
import { withRoundTrips } from '../support/round-trips';

let site: SeededInstallation;
let key: string;

async function insertJob(status: string): Promise<number> {
  const [row] = await rows<{ id: number }>(
    `INSERT INTO background_jobs (installation_id, type, action, status, created_by, rows_total) VALUES ($1, 1, 1, $2, $3, 10) RETURNING id`,
    [site.id, status, site.users.agent.id],
  );
  return row!.id;
}

const statusOf = async (id: number) =>
  (await rows<{ status: string }>('SELECT status FROM background_jobs WHERE id = $1', [id]))[0]?.status;

/** The cancel's round trips, the caller's credential looked up just before (remembered: the count is the cancel alone). */
async function cancel(id: number) {
  await api('/v2/anomalies.json', { key });
  return withRoundTrips(`/v2/backgroundjobs/1/1/${id}.json`, { key, method: 'DELETE' });
}

beforeAll(async () => {
  site = await newInstallation('jobs-trips');
  key = site.users.agent.apiKey;
});

describe('cancelling a background job in one round trip', () => {
  it('cancels a queued job with its event in one exchange', async () => {
    const id = await insertJob('queued');
    const { answer, trips } = await cancel(id);
    expect(answer.status, answer.text).toBe(204);
    expect(trips).toBe(1);
    expect(await statusOf(id)).toBe('cancelled');
    expect((await eventsOf(site.id, 'backgroundjobs', id)).map((event) => event.kind)).toEqual(['cancelled']);
  });

  it('answers a job cancelled before (204), one finished (409) and none (404) from the same one exchange, nothing written', async () => {
    const cancelled = await insertJob('cancelled');
    const completed = await insertJob('completed');
    const again = await cancel(cancelled);
    expect(again.answer.status, again.answer.text).toBe(204);
    expect(again.trips).toBe(1);
    const finished = await cancel(completed);
    expectError(finished.answer, 409, 'id');
    expect(finished.trips).toBe(1);
    expect(await statusOf(completed)).toBe('completed');
    const none = await cancel(2_000_000_000);
    expectError(none.answer, 404, 'id');
    expect(none.trips).toBe(1);
    for (const id of [cancelled, completed]) expect(await eventsOf(site.id, 'backgroundjobs', id)).toEqual([]);
  });
});
