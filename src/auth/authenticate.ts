import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import type { Database } from '../db/client';
import { credentials, users } from '../db/schema';
import { ApiError } from '../http/errors';
import { presentedSecret } from './credentials';
import type { Principal } from './principal';
import { hashSecret } from './secrets';

/**
 * Credentials seen in the last 30 seconds, per isolate: a busy client pays the look-up once,
 * not on every request. A revoked key or a changed role takes effect within that time.
 */
const CACHE_MS = 30_000;
const CACHE_MAX = 5_000;
const recent = new Map<string, { principal: Principal; until: number }>();

async function lookUp(db: Database, hash: string): Promise<{ principal: Principal; expiresAt: Date | null } | undefined> {
  const [row] = await db.http
    .select({ installationId: credentials.installationId, userId: credentials.userId, role: users.role, expiresAt: credentials.expiresAt })
    .from(credentials)
    .innerJoin(users, and(eq(users.id, credentials.userId), eq(users.installationId, credentials.installationId)))
    .where(
      and(
        eq(credentials.secretHash, hash),
        isNull(credentials.revokedAt),
        or(isNull(credentials.expiresAt), gt(credentials.expiresAt, sql`now()`)),
        eq(users.state, 'active'),
      ),
    );
  if (!row) return undefined;
  const { expiresAt, ...teammate } = row;
  return { principal: { kind: 'teammate', ...teammate }, expiresAt };
}

/** The teammate behind a presented secret, or undefined when it is no valid credential. */
export async function principalOf(db: Database, secret: string): Promise<Principal | undefined> {
  const hash = await hashSecret(secret);
  const now = Date.now();
  const cached = recent.get(hash);
  if (cached && cached.until > now) return cached.principal;
  const found = await lookUp(db, hash);
  if (!found) return undefined;
  if (recent.size >= CACHE_MAX) recent.clear();
  // Never remembered past its expiry.
  recent.set(hash, { principal: found.principal, until: Math.min(now + CACHE_MS, found.expiresAt?.getTime() ?? Infinity) });
  return found.principal;
}

/** Resolves the caller from the Authorization header: 401 with `WWW-Authenticate` when it cannot. */
export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const secret = presentedSecret(c.req.header('authorization'));
  if (!secret) throw ApiError.unauthorized('send an API key as "Authorization: Bearer <key>"');
  const principal = await principalOf(c.var.db, secret);
  if (!principal) throw ApiError.unauthorized('the credential is not valid');
  c.set('principal', principal);
  await next();
};
