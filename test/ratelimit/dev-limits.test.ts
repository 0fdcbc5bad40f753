// `npm run dev` as a newcomer meets it: the Worker with the local stack's variables alone
// (`workerVars`, what scripts/dev.ts passes to wrangler dev), so production's limits: 120 requests a
// minute a teammate, 20 failed authentications a minute an address. The tests' and benchmarks'
// own limits (`MACHINE_LIMITS`) are theirs only.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { MACHINE_LIMITS, workerVars } from '../../scripts/worker-vars';
import { serveWorker, type WorkerUnderTest } from '../../scripts/worker-under-test';
import { checkAnswer } from '../support/contract';
import { newInstallation } from '../support/db';
import { earlyInAMinute } from './minute';

let worker: WorkerUnderTest;
let site: SeededInstallation;

const call = async (path: string, key: string) => {
  const url = `${worker.url}${path}`;
  return checkAnswer('GET', url, await fetch(url, { headers: { authorization: `Bearer ${key}` } }));
};

beforeAll(async () => {
  worker = await serveWorker(inject('stackParts'), inject('workerScript'), { productionLimits: true });
  site = await newInstallation('dev-limits');
}, 60_000);

afterAll(async () => {
  await worker?.stop();
});

describe("dev's variables", () => {
  it("set no limit: the Worker's defaults, production's, apply; the machines' limits are apart", () => {
    const dev = workerVars(inject('stackParts'));
    for (const name of [
      'RATE_LIMIT_PER_MINUTE',
      'AUTH_FAILURES_PER_MINUTE',
      'PUBLIC_READS_PER_MINUTE',
      'ROOM_MESSAGES_PER_MINUTE',
      'RATE_LIMITS',
    ])
      expect(dev, name).not.toHaveProperty(name);
    expect(Object.keys(MACHINE_LIMITS).sort()).toEqual([
      'AUTH_FAILURES_PER_MINUTE',
      'PUBLIC_READS_PER_MINUTE',
      'RATE_LIMIT_PER_MINUTE',
      'ROOM_MESSAGES_PER_MINUTE',
    ]);
  });
});

describe('a Worker served as dev serves it', () => {
  it('says the default is 120 a minute, and answers the 121st request of a minute 429', async () => {
    const key = site.users.agent.apiKey;
    const setting = await call('/v2/ratelimit.json', key);
    expect(setting.body.ratelimit).toEqual({ requestsPerMinute: null, default: 120, effective: 120 });
    await earlyInAMinute();
    const first = await call('/v2/me.json', key);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-rate-limit-limit')).toBe('120');
    const used = 120 - Number(first.headers.get('x-rate-limit-remaining'));
    const statuses: number[] = [];
    for (let i = used; i < 120; i++) statuses.push((await call('/v2/me.json', key)).status);
    expect(statuses.every((status) => status === 200)).toBe(true);
    const refused = await call('/v2/me.json', key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('refuses an address past 20 failed authentications in a minute', async () => {
    await earlyInAMinute();
    const failed: number[] = [];
    for (let i = 0; i < 20; i++) failed.push((await call('/v2/me.json', `not-a-key-${i}`)).status);
    expect(failed).toEqual(Array(20).fill(401));
    const refused = await call('/v2/me.json', 'not-a-key-21');
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0]).toMatchObject({ code: 'tooManyRequests' });
  });
});
