// Clearing anomalies is one exchange with the database (one HTTP batch, no WebSocket connection):
// the clear with its event and the anomaly read back; an anomaly that is not the caller's to clear
// answers its 404 from inside that exchange, nothing written (docs/connection-strategy.md).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api, type ApiRequest } from '../support/api';
import { newInstallation } from '../support/db';
import { eventsOf } from '../support/events';
import { withRoundTrips } from '../support/round-trips';
import { anomalyRows, expectError, insertAnomaly } from './fixtures';

let site: SeededInstallation;
let other: SeededInstallation;
let key: string;

beforeAll(async () => {
  site = await newInstallation('anomalies-trips');
  other = await newInstallation('anomalies-trips-other');
  key = site.users.agent.apiKey;
});

/** The request's round trips, its caller's credential looked up just before (remembered: the count is the write alone). */
async function counted(path: string, request: ApiRequest) {
  await api('/v2/anomalies.json', { key });
  return withRoundTrips(path, { key, ...request });
}

describe('clearing anomalies in one round trip', () => {
  it('clears one anomaly with its event and answers it as read, in one exchange', async () => {
    const id = await insertAnomaly(site.id, { name: 'ticket_burst' });
    const { answer, trips } = await counted(`/v2/anomalies/${id}/clear.json`, {
      method: 'POST',
      body: { anomaly: { clearNote: 'seen' } },
      query: { includes: 'all' },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(trips).toBe(1);
    expect(answer.body.anomaly).toMatchObject({
      id,
      status: 'cleared',
      clearNote: 'seen',
      clearedBy: { id: site.users.agent.id, type: 'users' },
    });
    const [event] = await eventsOf(site.id, 'anomalies', id);
    expect(event).toMatchObject({
      kind: 'updated',
      actorUserId: site.users.agent.id,
      data: { status: { before: 'open', after: 'cleared' }, clearNote: { before: null, after: 'seen' } },
    });
  });

  it("answers another installation's anomaly, or one that is not there, with its 404 from the same exchange, nothing written", async () => {
    const theirs = await insertAnomaly(other.id, { name: 'ticket_burst' });
    for (const id of [theirs, 2_000_000_000]) {
      const before = await anomalyRows([site.id, other.id]);
      const { answer, trips } = await counted(`/v2/anomalies/${id}/clear.json`, {
        method: 'POST',
        body: { anomaly: { clearNote: 'mine?' } },
      });
      expectError(answer, 404, 'id');
      expect(answer.body.errors[0].detail).toBe(`anomaly ${id} not found`);
      expect(trips).toBe(1);
      expect(await anomalyRows([site.id, other.id])).toEqual(before);
    }
    expect(await eventsOf(other.id, 'anomalies', theirs)).toEqual([]);
  });

  it('clears every anomaly a filter selects in one exchange, each with its event', async () => {
    const ids = [
      await insertAnomaly(site.id, { name: 'trips spike' }),
      await insertAnomaly(site.id, { name: 'trips spike' }),
    ];
    const { answer, trips } = await counted('/v2/anomalies/clear.json', {
      method: 'PATCH',
      query: { filter: { name: 'trips spike' } },
      body: { anomaly: {} },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(trips).toBe(1);
    expect(answer.body).toEqual({ affected: 2, ids, jobId: null, dryRun: false });
    for (const id of ids)
      expect((await eventsOf(site.id, 'anomalies', id)).map((event) => event.kind)).toEqual(['updated']);
  });
});
