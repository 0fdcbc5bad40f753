import { sql } from 'drizzle-orm';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv, Env } from '../app-env';
import type { Database } from '../db/client';
import { tooManyRequests } from './too-many';

/** A teammate's requests a minute when neither the installation nor the deployment (`RATE_LIMIT_PER_MINUTE`) says otherwise: the platform's. */
const DEFAULT_PER_MINUTE = 120;
/** How long an isolate keeps an installation's limit: a change reaches the others within this. */
const LIMIT_CACHE_MS = 30_000;

const limits = new Map<number, { perMinute: number; until: number }>();

/** The deployment's default: `RATE_LIMIT_PER_MINUTE`, else the platform's 120. */
export const deploymentDefault = (env: Pick<Env, 'RATE_LIMIT_PER_MINUTE'>): number =>
  Number(env.RATE_LIMIT_PER_MINUTE) || DEFAULT_PER_MINUTE;

/** The installation's limit: its own setting, else the deployment's default; read at most every 30 s per isolate. */
async function perMinuteOf(env: Env, db: Database, installationId: number): Promise<number> {
  const now = Date.now();
  const cached = limits.get(installationId);
  if (cached && cached.until > now) return cached.perMinute;
  const { rows } = await db.http.execute(
    sql`SELECT rate_limit_per_minute FROM installations WHERE id = ${installationId}`,
  );
  const own = rows[0]?.rate_limit_per_minute;
  const perMinute = own === null || own === undefined ? deploymentDefault(env) : Number(own);
  if (limits.size > 10_000) limits.clear();
  limits.set(installationId, { perMinute, until: now + LIMIT_CACHE_MS });
  return perMinute;
}

/** An installation's limit changed here: this isolate uses it at once (the others within 30 s), giving back what it holds of the old. */
export function forgetLimit(installationId: number): void {
  limits.delete(installationId);
  for (const [key, allowance] of allowances) if (key.startsWith(`${installationId}:`)) allowance.perMinute = -1;
}

/**
 * Requests an isolate has been granted for a caller in the current minute and not spent yet. An
 * isolate asks the installation's limiter for a twentieth of the limit at a time (at most 50), so
 * most requests cost no call to it; the limiter never grants past the limit, so all isolates
 * together never let more through (another isolate's unspent grant can make one answer 429 a
 * little early; a grant left when the limit changes is given back by the isolate holding it).
 */
const allowances = new Map<
  string,
  { minute: number; left: number; remaining: number; resetAt: number; perMinute: number }
>();

/** What an isolate asks for at once: a twentieth of the limit, from 1 to 50. */
const shareOf = (perMinute: number) => Math.min(50, Math.max(1, Math.floor(perMinute / 20)));

function headersOf(allowance: {
  perMinute: number;
  remaining: number;
  left: number;
  resetAt: number;
}): Record<string, string> {
  return {
    'X-Rate-Limit-Limit': String(allowance.perMinute),
    'X-Rate-Limit-Remaining': String(allowance.remaining + allowance.left),
    'X-Rate-Limit-Reset': String(allowance.resetAt),
  };
}

/** Sets headers on the answer, copying it first when it came immutable (a fetched or stored body). */
function withHeaders(c: Context<AppEnv>, headers: Record<string, string>): void {
  try {
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  } catch {
    const copy = new Response(c.res.body, c.res);
    for (const [name, value] of Object.entries(headers)) copy.headers.set(name, value);
    c.res = copy;
  }
}

/**
 * Per teammate, the installation's requests a minute (`/v2/ratelimit.json`; 120 by default),
 * counted across every isolate and location by the installation's limiter (`limiter.ts`). Every
 * answer carries `X-Rate-Limit-Limit`, `X-Rate-Limit-Remaining` and `X-Rate-Limit-Reset` (epoch
 * seconds, when the minute ends); past the limit, a 429 with `Retry-After`. Runs once the caller
 * is known, before anything else of the request. `RATE_LIMITS=off` switches it off (the
 * benchmark's baseline).
 */
export const rateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.env.RATE_LIMITS === 'off') return next();
  const who = c.var.principal;
  const perMinute = await perMinuteOf(c.env, c.var.db, who.installationId);
  const minute = Math.floor(Date.now() / 60_000);
  const key = `${who.installationId}:${who.userId}`;
  let allowance = allowances.get(key);
  if (!allowance || allowance.minute !== minute || allowance.perMinute !== perMinute || allowance.left === 0) {
    const limiter = c.env.RATE_LIMITER.get(c.env.RATE_LIMITER.idFromName(`installation:${who.installationId}`));
    // what is left of a grant of this minute under another limit goes back
    const returned = allowance && allowance.minute === minute ? allowance.left : 0;
    const grant = await limiter.grant(`user:${who.userId}`, perMinute, shareOf(perMinute), returned);
    allowance = {
      minute: grant.resetAt / 60 - 1,
      left: grant.granted,
      remaining: grant.remaining,
      resetAt: grant.resetAt,
      perMinute,
    };
    if (allowances.size > 10_000) allowances.clear();
    allowances.set(key, allowance);
  }
  if (allowance.left === 0) {
    throw tooManyRequests(allowance.resetAt, `more than ${perMinute} requests a minute`, headersOf(allowance));
  }
  allowance.left -= 1;
  const headers = headersOf(allowance);
  await next();
  withHeaders(c, headers);
};
