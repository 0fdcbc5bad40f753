import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { tooManyRequests } from './too-many';

/** Failed authentications a client address may make a minute (`AUTH_FAILURES_PER_MINUTE`) before its look-ups are refused. */
const DEFAULT_FAILURES_PER_MINUTE = 20;

/** The limiter object of the client's address (`CF-Connecting-IP`), unless the limits are off. */
function addressLimiter(c: Context<AppEnv>) {
  if (c.env.RATE_LIMITS === 'off' || !c.env.RATE_LIMITER) return undefined;
  const address = c.req.header('cf-connecting-ip') ?? 'unknown';
  return c.env.RATE_LIMITER.get(c.env.RATE_LIMITER.idFromName(`address:${address}`));
}

/** What the credential look-up asks before it reads the database, and tells when the credential is no valid one. */
export interface LookUpGuard {
  before(): Promise<void>;
  failed(): Promise<void>;
}

/**
 * Failed authentication, limited per client address (`CF-Connecting-IP`), so keys cannot be
 * guessed at speed: a credential this isolate does not know already (a valid one it saw in the
 * last 30 s passes without it) is looked up only while the address has failed fewer than
 * `AUTH_FAILURES_PER_MINUTE` times (20) this minute; past that, 429 with `Retry-After` until the
 * minute ends, a valid key included (a guesser must not learn which key was good). Counted by a
 * limiter object per address, as the requests per teammate are.
 */
export function addressGuard(c: Context<AppEnv>): LookUpGuard | undefined {
  const limiter = addressLimiter(c);
  if (!limiter) return undefined;
  const limit = Number(c.env.AUTH_FAILURES_PER_MINUTE) || DEFAULT_FAILURES_PER_MINUTE;
  return {
    async before() {
      const left = await limiter.grant('failures', limit, 0);
      if (left.remaining > 0) return;
      throw tooManyRequests(left.resetAt, `more than ${limit} failed authentications from this address in a minute`);
    },
    async failed() {
      await limiter.grant('failures', limit, 1);
    },
  };
}

/** Public reads a client address may make a minute (`PUBLIC_READS_PER_MINUTE`) on what needs no credential, as the help centre. */
const DEFAULT_PUBLIC_READS_PER_MINUTE = 600;

/**
 * Requests without a credential, limited per client address: a public help centre is read by
 * anyone, and each read counts toward an article's popularity. Past the limit, 429 with
 * `Retry-After` until the minute ends. Counted by the same limiter objects per address.
 */
export const limitPublicReads: MiddlewareHandler<AppEnv> = async (c, next) => {
  const limiter = addressLimiter(c);
  if (limiter) {
    const limit = Number(c.env.PUBLIC_READS_PER_MINUTE) || DEFAULT_PUBLIC_READS_PER_MINUTE;
    const left = await limiter.grant('public', limit, 1);
    if (left.granted === 0)
      throw tooManyRequests(left.resetAt, `more than ${limit} requests a minute from this address`);
  }
  await next();
};
