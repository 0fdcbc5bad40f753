import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import type { Database } from '../db/client';
import { credentials, users, type UserRole } from '../db/schema';
import { ApiError } from '../http/errors';
import { requireRole } from './access';
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

/** The 401 of a request that presents no credential (or a header that is not one). */
export const noCredential = (detail = 'send an API key as "Authorization: Bearer <key>"') => ApiError.unauthorized(detail);

/** The 401 of a credential that is no valid one (unknown, revoked, expired, or its user gone). */
export const invalidCredential = () => ApiError.unauthorized('the credential is not valid');

/**
 * The secret the request's `Authorization` header presents, and the teammate behind it when it
 * is a valid credential: for a route that also takes another kind of secret (a form token).
 */
export async function presentedTeammate(c: Context<AppEnv>): Promise<{ secret: string | undefined; principal: Principal | undefined }> {
  const secret = presentedSecret(c.req.header('authorization'));
  return { secret, principal: secret ? await principalOf(c.var.db, secret) : undefined };
}

/**
 * The teammate calling, from the `Authorization` header: 401 (with `WWW-Authenticate`) when it
 * presents no valid credential, then 403 unless the role is one of `roles` (when given).
 */
export async function requireTeammate(c: Context<AppEnv>, roles?: readonly UserRole[]): Promise<Principal> {
  const { secret, principal } = await presentedTeammate(c);
  if (!secret) throw noCredential();
  if (!principal) throw invalidCredential();
  if (roles) requireRole(principal, roles);
  return principal;
}

/** Resolves the caller from the Authorization header (`requireTeammate`), for the routes that are not public. */
export function authenticate(roles?: readonly UserRole[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('principal', await requireTeammate(c, roles));
    await next();
  };
}
