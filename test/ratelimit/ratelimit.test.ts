// Rate limits: each teammate's requests a minute, the installation's setting (the deployment's
// default otherwise), counted by the installation's Durable Object; the platform's headers on
// every answer, a 429 with Retry-After past the limit.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation } from '../support/db';
import { expectError } from '../support/errors';
import { earlyInAMinute } from './minute';

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;

/** The tests' Worker's default (`RATE_LIMIT_PER_MINUTE`, out of the way of the other tests). */
const TEST_DEFAULT = 1_000_000;

const setLimit = (requestsPerMinute: unknown, key = admin) =>
  api('/v2/ratelimit.json', { method: 'PUT', key, body: { ratelimit: { requestsPerMinute } } });

beforeAll(async () => {
  site = await newInstallation('ratelimit');
  other = await newInstallation('ratelimit-other');
  admin = site.users.admin.apiKey;
});

describe('rate limits', () => {
  it("answer with the platform's headers on every authenticated answer", async () => {
    // the reset is the end of the minute the request was counted in: after the request began, within a minute of its answer
    const before = Math.floor(Date.now() / 1000);
    const answer = await api('/v2/tickets.json', { key: site.users.agent.apiKey });
    const after = Math.floor(Date.now() / 1000);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-rate-limit-limit')).toBe(String(TEST_DEFAULT));
    expect(Number(answer.headers.get('x-rate-limit-remaining'))).toBeLessThan(TEST_DEFAULT);
    const reset = Number(answer.headers.get('x-rate-limit-reset'));
    expect(reset).toBeGreaterThan(before);
    expect(reset).toBeLessThanOrEqual(after + 60);
    expect(reset % 60).toBe(0);
    // an error answer carries them too
    expect(
      (await api('/v2/tickets/999999.json', { key: site.users.agent.apiKey })).headers.get('x-rate-limit-limit'),
    ).toBe(String(TEST_DEFAULT));
  });

  it("are the installation's to set (owners and admins), 10 to 100,000 a minute, or the default", async () => {
    expect((await api('/v2/ratelimit.json', { key: site.users.agent.apiKey })).body).toEqual({
      ratelimit: { requestsPerMinute: null, default: TEST_DEFAULT, effective: TEST_DEFAULT },
    });
    expect((await setLimit(50, site.users.agent.apiKey)).status).toBe(403);
    expectError(await setLimit(5), 400, 'ratelimit.requestsPerMinute');
    expectError(await setLimit(100_001), 400, 'ratelimit.requestsPerMinute');
    expectError(await setLimit('many'), 400, 'ratelimit.requestsPerMinute');
    // an unknown property is ignored and named; the known one is set
    const ignoring = await api('/v2/ratelimit.json', {
      method: 'PUT',
      key: admin,
      body: { ratelimit: { requestsPerMinute: 50, burst: 3 } },
    });
    expect(ignoring.status, ignoring.text).toBe(200);
    expect(ignoring.headers.get('x-ignored-properties')).toBe('ratelimit.burst');
    expect(ignoring.body.ratelimit.requestsPerMinute).toBe(50);
    const set = await setLimit(5_000);
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ ratelimit: { requestsPerMinute: 5_000, default: TEST_DEFAULT, effective: 5_000 } });
    expect((await setLimit(null)).body.ratelimit).toEqual({
      requestsPerMinute: null,
      default: TEST_DEFAULT,
      effective: TEST_DEFAULT,
    });
  });

  it('answer 429 with Retry-After past the limit, for that teammate only, until the minute ends', async () => {
    await earlyInAMinute();
    expect((await setLimit(10)).status).toBe(200);
    // the owner has made no request yet this minute (a limit counts what was made under the last one too)
    const owner = site.users.owner.apiKey;
    const remaining: number[] = [];
    for (let i = 0; i < 10; i++) {
      const answer = await api('/v2/tickets.json', { key: owner });
      expect(answer.status, answer.text).toBe(200);
      remaining.push(Number(answer.headers.get('x-rate-limit-remaining')));
    }
    expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    const refused = await api('/v2/tickets.json', { key: owner });
    expectError(refused, 429, undefined, /more than 10 requests a minute/);
    expect(refused.body.errors[0].code).toBe('tooManyRequests');
    expect(refused.headers.get('x-rate-limit-remaining')).toBe('0');
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    expect(Number(refused.headers.get('x-rate-limit-reset')) - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(wait);
    // writes too, and nothing is written
    expectError(await api('/v2/tags.json', { method: 'POST', key: owner, body: { name: 'over the limit' } }), 429);
    // another teammate, another installation: their own counts
    expect((await api('/v2/tickets.json', { key: site.users.agent.apiKey })).status).toBe(200);
    expect((await api('/v2/tickets.json', { key: other.users.agent.apiKey })).headers.get('x-rate-limit-limit')).toBe(
      String(TEST_DEFAULT),
    );
    // raised, it applies at once here
    expect((await setLimit(null)).status).toBe(200);
    expect((await api('/v2/tickets.json', { key: owner })).status).toBe(200);
  });
});
