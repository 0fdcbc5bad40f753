// Setting the rate limit is one exchange with the database (one HTTP batch, no WebSocket
// connection): the change with its event (the limit before and after) and the limit read back
// (docs/connection-strategy.md).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation } from '../support/db';
import { eventsOf } from '../support/events';
import { withRoundTrips } from '../support/round-trips';

let site: SeededInstallation;
let admin: string;

beforeAll(async () => {
  site = await newInstallation('ratelimit-trips');
  admin = site.users.admin.apiKey;
});

async function setLimit(requestsPerMinute: number | null) {
  await api('/v2/ratelimit.json', { key: admin });
  return withRoundTrips('/v2/ratelimit.json', {
    method: 'PUT',
    key: admin,
    body: { ratelimit: { requestsPerMinute } },
  });
}

describe('the rate limit in one round trip', () => {
  it('sets and clears the limit, each with its event, in one exchange', async () => {
    const set = await setLimit(500);
    expect(set.answer.status, set.answer.text).toBe(200);
    expect(set.trips).toBe(1);
    expect(set.answer.body.ratelimit).toMatchObject({ requestsPerMinute: 500, effective: 500 });
    const cleared = await setLimit(null);
    expect(cleared.trips).toBe(1);
    expect(cleared.answer.body.ratelimit.requestsPerMinute).toBeNull();
    expect(
      (await eventsOf(site.id, 'installations', site.id))
        .filter((event) => event.kind === 'settingChanged')
        .map((event) => event.data),
    ).toEqual([
      { rateLimitPerMinute: { before: null, after: 500 } },
      { rateLimitPerMinute: { before: 500, after: null } },
    ]);
  });
});
