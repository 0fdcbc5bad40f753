import { sql, type SQL } from 'drizzle-orm';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import type { Database } from '../db/client';
import { credentials, oauthApps, oauthGrants, users, type OAuthScope, type UserRole } from '../db/schema';
import { ApiError } from '../http/errors';
import { requireRole, requireScope } from './access';
import { presentedSecret } from './credentials';
import type { Principal } from './principal';
import { effectiveScopes } from './scopes';
import { hashSecret } from './secrets';
import { addressGuard, type LookUpGuard } from '../ratelimit/address-guard';

/**
 * Credentials seen in the last 30 seconds, per isolate: a busy client pays the look-up once,
 * not on every request. A revoked key or a changed role takes effect within that time.
 */
const CACHE_MS = 30_000;
const CACHE_MAX = 5_000;
const recent = new Map<string, { principal: Principal; credentialId: number; until: number }>();

/** The credentials `Authorization` presents; a `signin` cookie serves only the OAuth authorize page. */
export type CredentialUse = 'request' | 'signin';

/**
 * The live credential of the hash, with its teammate (and, for an OAuth access token, its grant,
 * which must stand and whose app must live), in one statement that also records its use
 * (`lastUsedAt`, written at most once a minute: a busy key costs no write per request).
 */
export function credentialLookUp(hash: string, use: CredentialUse = 'request'): SQL {
  const kinds = use === 'request' ? sql`('api_key', 'oauth_access_token')` : sql`('signin')`;
  return sql`
    WITH found AS (
      SELECT ${credentials.id} AS id, ${credentials.installationId} AS installation_id, ${credentials.userId} AS user_id, ${users.role} AS role,
             ${credentials.expiresAt} AS expires_at, ${credentials.lastUsedAt} AS last_used_at,
             ${credentials.grantId} AS grant_id, ${oauthGrants.appId} AS app_id, ${oauthGrants.scopes} AS scopes, ${oauthApps.scopes} AS app_scopes
        FROM ${credentials}
        JOIN ${users} ON ${users.id} = ${credentials.userId} AND ${users.installationId} = ${credentials.installationId}
        LEFT JOIN ${oauthGrants} ON ${oauthGrants.id} = ${credentials.grantId}
        LEFT JOIN ${oauthApps} ON ${oauthApps.id} = ${oauthGrants.appId}
       WHERE ${credentials.secretHash} = ${hash} AND ${credentials.state} = 'active' AND ${credentials.kind} IN ${kinds}
         AND (${credentials.expiresAt} IS NULL OR ${credentials.expiresAt} > now()) AND ${users.state} = 'active'
         AND (${credentials.grantId} IS NULL OR (${oauthGrants.state} = 'active' AND ${oauthApps.state} = 'active'))
         AND (${credentials.parentId} IS NULL OR EXISTS (SELECT 1 FROM ${credentials} AS parent WHERE parent.id = ${credentials.parentId} AND parent.state = 'active'))),
    touched AS (
      UPDATE ${credentials} SET last_used_at = now() FROM found
       WHERE ${credentials.id} = found.id AND (found.last_used_at IS NULL OR found.last_used_at < now() - interval '1 minute'))
    SELECT id, installation_id, user_id, role, expires_at, grant_id, app_id, scopes, app_scopes FROM found`;
}

async function lookUp(
  db: Database,
  hash: string,
  use: CredentialUse,
): Promise<{ principal: Principal; credentialId: number; expiresAt: Date | null } | undefined> {
  const { rows } = await db.http.execute(credentialLookUp(hash, use));
  const row = rows[0];
  if (!row) return undefined;
  const principal: Principal = {
    kind: 'teammate',
    installationId: Number(row.installation_id),
    userId: Number(row.user_id),
    role: row.role as UserRole,
  };
  if (row.grant_id != null)
    principal.oauth = {
      grantId: Number(row.grant_id),
      appId: Number(row.app_id),
      scopes: effectiveScopes(row.scopes as OAuthScope[], row.app_scopes as OAuthScope[]),
    };
  return {
    principal,
    credentialId: Number(row.id),
    expiresAt: row.expires_at ? new Date(row.expires_at as string) : null,
  };
}

/**
 * A secret we issued once, now expired or revoked (an app's access token replaced by its refresh,
 * say): presenting it is no guess, so it does not count against the client's address.
 */
async function issuedOnce(db: Database, hash: string): Promise<boolean> {
  const { rows } = await db.http.execute(
    sql`SELECT EXISTS (SELECT 1 FROM ${credentials} WHERE ${credentials.secretHash} = ${hash}) AS issued`,
  );
  return rows[0]?.issued === true;
}

/**
 * The teammate behind a presented secret, or undefined when it is no valid credential. A secret
 * not remembered is looked up only once `guard` lets it (the failures of the client's address,
 * `ratelimit/address-guard.ts`), and a failed look-up of a secret never issued is told to it.
 */
export async function principalOf(
  db: Database,
  secret: string,
  guard?: LookUpGuard,
  use: CredentialUse = 'request',
): Promise<Principal | undefined> {
  const hash = await hashSecret(secret);
  const now = Date.now();
  const cached = use === 'request' ? recent.get(hash) : undefined;
  if (cached && cached.until > now) return cached.principal;
  await guard?.before();
  const found = await lookUp(db, hash, use);
  if (!found) {
    if (guard && !(await issuedOnce(db, hash))) await guard.failed();
    return undefined;
  }
  // An OAuth token is looked up every time: its revocation (by the app, a reused code or refresh
  // token, a deleted app) must stop it at once everywhere (RFC 7009), not within the cache's 30 s.
  // So is a sign-in cookie, which ends with the key it came from (and is used by one page only).
  if (found.principal.oauth || use === 'signin') return found.principal;
  if (recent.size >= CACHE_MAX) recent.clear();
  // Never remembered past its expiry.
  recent.set(hash, {
    principal: found.principal,
    credentialId: found.credentialId,
    until: Math.min(now + CACHE_MS, found.expiresAt?.getTime() ?? Infinity),
  });
  return found.principal;
}

/**
 * Drops this isolate's remembered credentials of a teammate (deactivated, or its role changed) or
 * one credential (revoked), or an OAuth grant's or app's tokens (revoked, deleted), once the change has committed: here they stop at once; other
 * isolates forget them within 30 s.
 */
export function forgetCredentials(
  which: { userId: number } | { credentialId: number } | { grantId: number } | { appId: number },
): void {
  for (const [hash, entry] of recent) {
    const { principal } = entry;
    const matches =
      'userId' in which
        ? principal.userId === which.userId
        : 'credentialId' in which
          ? entry.credentialId === which.credentialId
          : 'grantId' in which
            ? principal.oauth?.grantId === which.grantId
            : principal.oauth?.appId === which.appId;
    if (matches) recent.delete(hash);
  }
}

/** The 401 of a request that presents no credential (or a header that is not one). */
export const noCredential = (detail = 'send an API key as "Authorization: Bearer <key>"') =>
  ApiError.unauthorized(detail);

/** The 401 of a credential that is no valid one (unknown, revoked, expired, or its user gone). */
export const invalidCredential = () => ApiError.unauthorized('the credential is not valid');

/**
 * The secret the request's `Authorization` header presents, and the teammate behind it when it
 * is a valid credential: for a route that also takes another kind of secret (a form token).
 */
export async function presentedTeammate(
  c: Context<AppEnv>,
): Promise<{ secret: string | undefined; principal: Principal | undefined }> {
  const secret = presentedSecret(c.req.header('authorization'));
  const principal = secret ? await principalOf(c.var.db, secret, addressGuard(c)) : undefined;
  // an OAuth token's scopes hold wherever a teammate's credential is taken
  if (principal) requireScope(principal, c.req.method);
  return { secret, principal };
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
  c.var.db.installationId ??= principal.installationId;
  return principal;
}

/** Resolves the caller from the Authorization header (`requireTeammate`), for the routes that are not public. */
export function authenticate(roles?: readonly UserRole[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('principal', await requireTeammate(c, roles));
    await next();
  };
}
