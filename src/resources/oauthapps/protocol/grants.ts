import { and, eq, sql, type SQL } from 'drizzle-orm';
import { forgetCredentials } from '../../../auth/authenticate';
import { hashSecret, newSecret } from '../../../auth/secrets';
import type { Database } from '../../../db/client';
import { recalled, remember } from '../../../db/refusal';
import {
  credentials,
  installations,
  oauthCodes,
  oauthGrants,
  oauthRefreshTokens,
  users,
  type OAuthScope,
} from '../../../db/schema';
import type { OAuthClient } from './client-auth';
import { ACCESS_TOKEN_SECONDS, CODE_SECONDS, REFRESH_TOKEN_SECONDS } from './lifetimes';
import { OAuthError } from './oauth-error';
import { s256 } from './pkce';
import { effectiveScopes } from '../../../auth/scopes';

/** What a successful token request gives: the two tokens, and whose they are. */
export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  scopes: OAuthScope[];
  installationId: number;
  userId: number;
  /** who the answer names, where the exchange read it already */
  owner?: TokenOwner;
}

const after = (seconds: number) => new Date(Date.now() + seconds * 1000);

/** The name a new grant's id goes by in its batch. */
const GRANT = 'oauthgrant_id';

/**
 * The teammate's consent to the app, and a code for it (`hda_…`, good once, for 10 minutes), in one
 * batch with `alongside` (statements of the same consent, such as the page's sign-in credential),
 * whose rows are answered in their order.
 */
export async function issueCode(
  db: Database,
  consent: {
    client: OAuthClient;
    userId: number;
    scopes: OAuthScope[];
    redirectUri: string;
    redirectUriSent: boolean;
    codeChallenge: string;
  },
  alongside: SQL[] = [],
): Promise<{ code: string; alongside: Record<string, unknown>[][] }> {
  const code = await newSecret('hda_');
  // one exchange: the grant, and the code under it (its id handed on in the transaction)
  const results = await db.batch([
    ...alongside,
    db.http
      .insert(oauthGrants)
      .values({
        installationId: consent.client.installationId,
        appId: consent.client.id,
        userId: consent.userId,
        scopes: consent.scopes,
        createdBy: consent.userId,
        updatedBy: consent.userId,
      })
      .returning({ id: oauthGrants.id, remembered: sql`${remember(GRANT, sql`${oauthGrants.id}`)}` })
      .getSQL(),
    db.http
      .insert(oauthCodes)
      .values({
        codeHash: code.hash,
        grantId: sql`${recalled(GRANT)}`,
        redirectUri: consent.redirectUri,
        redirectUriSent: consent.redirectUriSent,
        codeChallenge: consent.codeChallenge,
        expiresAt: after(CODE_SECONDS),
      })
      .getSQL(),
  ]);
  return { code: code.secret, alongside: results.slice(0, alongside.length) as Record<string, unknown>[][] };
}

/** A grant ended by the protocol (no teammate did it: `deletedBy` stays null). */
const REVOKED = { state: 'deleted' as const, deletedAt: sql`now()`, updatedAt: sql`now()` };

/** The name a token request's verdict goes by in its batch: what the statements after the first do hangs on it. */
const VERDICT = 'oauth_verdict';
const verdictIs = (value: string) => sql`current_setting(${`desk.${VERDICT}`}::text) = ${value}`;

/** Why a code gives no tokens, by the verdict of `exchangeCode`'s batch, in the order they are checked. */
const CODE_REFUSALS: Record<string, string> = {
  unknown: 'the code is not one this app was given',
  reused: 'the code was used already: the tokens it gave are revoked',
  expired: `the code has expired: codes work for ${CODE_SECONDS / 60} minutes`,
  ended: 'the consent behind the code has ended',
  redirect: 'redirect_uri must be the one the authorize request sent',
  // a code issued before PKCE was required of every app
  unchallenged: 'the code was given without a PKCE code_challenge: authorize again with one',
  // the challenge itself is no verifier: it went through the browser (the authorize link, its
  // history, its logs), so whoever saw it could redeem a stolen code with it
  challenge: 'the code_verifier is the code_challenge itself: send the verifier the challenge was made from',
  verifier: 'the code_verifier does not match the code_challenge',
};

/**
 * A new access token and refresh token under the grant `grant` (SQL, its id), as statements of a
 * token request's batch: written only where the verdict is `ok`.
 */
async function issueTokenStatements(db: Database, grant: SQL, appName: string) {
  const [access, refresh] = await Promise.all([newSecret('hdo_'), newSecret('hdr_')]);
  const ok = verdictIs('ok');
  const statements = [
    sql`INSERT INTO ${credentials} (installation_id, user_id, kind, name, prefix, secret_hash, expires_at, grant_id, created_by, updated_by)
      SELECT g.installation_id, g.user_id, 'oauth_access_token', ${appName}, ${access.prefix}, ${access.hash}, ${after(ACCESS_TOKEN_SECONDS).toISOString()}::timestamptz, g.id, g.user_id, g.user_id
        FROM ${oauthGrants} g WHERE g.id = ${grant} AND ${ok}`,
    sql`INSERT INTO ${oauthRefreshTokens} (token_hash, grant_id, expires_at) SELECT ${refresh.hash}, ${grant}, ${after(REFRESH_TOKEN_SECONDS).toISOString()}::timestamptz WHERE ${ok}`,
  ];
  return { statements, accessToken: access.secret, refreshToken: refresh.secret };
}

/** The answer of a token request whose verdict was `ok`: the tokens, whose they are, and who the batch's last statement read. */
function tokensIssued(
  issued: { accessToken: string; refreshToken: string },
  row: { scopes: OAuthScope[]; installationId: number; userId: number },
  results: readonly (readonly Record<string, unknown>[])[],
): IssuedTokens {
  return {
    accessToken: issued.accessToken,
    refreshToken: issued.refreshToken,
    scopes: row.scopes,
    installationId: row.installationId,
    userId: row.userId,
    owner: results.at(-1)![0] as unknown as TokenOwner,
  };
}

/**
 * The code's tokens (RFC 6749 4.1.3, RFC 7636 4.6), in one batch (one round trip): the code must be
 * this app's, unused, unexpired, sent back with the redirect URI it went to, and with the verifier
 * of its challenge (S256, as OAuth 2.1 has it for every app). The first statement locks the code
 * and gives the verdict, the others act on it; a refusal commits too, as a code used twice
 * revokes what it gave (RFC 6749 4.1.2).
 */
export async function exchangeCode(
  db: Database,
  client: OAuthClient,
  request: { code: string; redirectUri: string | undefined; codeVerifier: string },
): Promise<IssuedTokens> {
  const hash = await hashSecret(request.code);
  const grant = sql`(SELECT ${oauthCodes.grantId} FROM ${oauthCodes} WHERE ${oauthCodes.codeHash} = ${hash})`;
  const redirectWrong =
    request.redirectUri === undefined ? sql`c.redirect_uri_sent` : sql`c.redirect_uri <> ${request.redirectUri}`;
  const verdict = sql`CASE
      WHEN r.grant_id IS NULL OR r.app_id <> ${client.id} THEN 'unknown'
      WHEN r.used_at IS NOT NULL THEN 'reused'
      WHEN r.expires_at <= now() THEN 'expired'
      WHEN r.revoked OR NOT r.teammate_active THEN 'ended'
      WHEN r.redirect_wrong THEN 'redirect'
      WHEN r.code_challenge IS NULL THEN 'unchallenged'
      WHEN r.code_challenge = ${request.codeVerifier} THEN 'challenge'
      WHEN r.code_challenge <> ${await s256(request.codeVerifier)} THEN 'verifier'
      ELSE 'ok' END`;
  const issued = await issueTokenStatements(db, grant, client.name);
  const results = await db.batch([
    sql`WITH r AS (
        SELECT c.grant_id, g.app_id, g.installation_id, g.user_id, g.scopes, g.state <> 'active' AS revoked, u.state = 'active' AS teammate_active,
               c.used_at, c.expires_at, ${redirectWrong} AS redirect_wrong, c.code_challenge
          FROM ${oauthCodes} c JOIN ${oauthGrants} g ON g.id = c.grant_id JOIN ${users} u ON u.id = g.user_id
         WHERE c.code_hash = ${hash} FOR UPDATE OF c)
      SELECT r.grant_id AS "grantId", r.installation_id AS "installationId", r.user_id AS "userId", r.scopes,
             ${remember(VERDICT, verdict)} AS verdict
        FROM (SELECT 1) one LEFT JOIN r ON true`,
    db.http
      .update(oauthGrants)
      .set(REVOKED)
      .where(and(eq(oauthGrants.id, grant), eq(oauthGrants.state, 'active'), verdictIs('reused')))
      .getSQL(),
    db.http
      .update(oauthCodes)
      .set({ usedAt: sql`now()` })
      .where(and(eq(oauthCodes.codeHash, hash), verdictIs('ok')))
      .getSQL(),
    ...issued.statements,
    // who the answer names, read in the same exchange
    ownerQuery(
      sql`(u.id, u.installation_id) = (SELECT g.user_id, g.installation_id FROM ${oauthGrants} g WHERE g.id = ${grant}) AND ${verdictIs('ok')}`,
    ),
  ]);
  const row = results[0]![0] as {
    grantId: number | null;
    installationId: number;
    userId: number;
    scopes: OAuthScope[];
    verdict: string;
  };
  if (row.verdict === 'reused') forgetCredentials({ grantId: row.grantId! });
  if (row.verdict !== 'ok') throw new OAuthError('invalid_grant', CODE_REFUSALS[row.verdict]!);
  return tokensIssued(issued, row, results);
}

/** Why a refresh token gives no tokens, by the verdict of `refreshGrant`'s batch, in the order they are checked. */
const REFRESH_REFUSALS: Record<string, string> = {
  unknown: 'the refresh token is not one this app was given',
  revoked: 'the refresh token has been revoked',
  reused:
    'the refresh token was used already: every token of this grant is revoked; ask the teammate to authorize again',
  expired: 'the refresh token has expired',
  gone: 'the teammate is no longer active',
  narrowed: 'the app may no longer ask for what was granted',
};

/**
 * SQL: a grant's scopes (`scopes`, text[]) as its app allows them now (`effectiveScopes`, in
 * their order): each granted scope becomes what the app's scopes, known here, leave of it.
 */
function effectiveScopesSql(scopes: SQL, app: readonly OAuthScope[]): SQL {
  const kept = (scope: OAuthScope) => effectiveScopes([scope], app)[0] ?? null;
  return sql`coalesce((SELECT array_agg(y.scope ORDER BY y.first) FROM (
      SELECT x.scope, min(s.n) AS first FROM unnest(${scopes}) WITH ORDINALITY AS s(scope, n)
        CROSS JOIN LATERAL (SELECT CASE s.scope WHEN 'desk' THEN ${kept('desk')}::text WHEN 'desk:read' THEN ${kept('desk:read')}::text END AS scope) x
       WHERE x.scope IS NOT NULL GROUP BY x.scope) y), '{}'::text[])`;
}

/** SQL: the scopes of `asked` (in its order) that the granted ones (`granted`, text[]) do not cover (`scopesBeyond`), space-separated. */
function scopesBeyondSql(granted: SQL, asked: readonly OAuthScope[]): SQL {
  return sql`(SELECT string_agg(a.scope, ' ' ORDER BY a.n) FROM unnest(${`{${asked.join(',')}}`}::text[]) WITH ORDINALITY AS a(scope, n)
     WHERE NOT (a.scope = ANY(${granted}) OR (a.scope = 'desk:read' AND 'desk' = ANY(${granted}))))`;
}

/**
 * New tokens for a refresh token (RFC 6749 6), which then stops, as do the access tokens issued
 * before; a refresh token used again revokes the whole grant (OAuth 2.0 Security BCP 4.14: a
 * stolen one is spent by whichever of thief and app is second). `scope` may narrow the grant. One
 * batch (one round trip): the first statement locks the token and gives the verdict with the
 * grant's scopes as they become, the others act on it, so a refusal still commits what it must.
 */
export async function refreshGrant(
  db: Database,
  client: OAuthClient,
  request: { refreshToken: string; scopes: OAuthScope[] | undefined },
): Promise<IssuedTokens> {
  const hash = await hashSecret(request.refreshToken);
  const grant = sql`(SELECT ${oauthRefreshTokens.grantId} FROM ${oauthRefreshTokens} WHERE ${oauthRefreshTokens.tokenHash} = ${hash})`;
  const allowed = effectiveScopesSql(sql`r.scopes`, client.scopes);
  const beyond = request.scopes ? scopesBeyondSql(allowed, request.scopes) : sql`NULL::text`;
  const verdict = sql`CASE
      WHEN r.grant_id IS NULL OR r.app_id <> ${client.id} THEN 'unknown'
      WHEN r.revoked THEN 'revoked'
      WHEN r.used_at IS NOT NULL THEN 'reused'
      WHEN r.expires_at <= now() THEN 'expired'
      WHEN NOT r.teammate_active THEN 'gone'
      WHEN cardinality(${allowed}) = 0 THEN 'narrowed'
      WHEN ${beyond} IS NOT NULL THEN 'beyond'
      ELSE 'ok' END`;
  const scopes = request.scopes ? sql`${`{${request.scopes.join(',')}}`}::text[]` : allowed;
  const issued = await issueTokenStatements(db, grant, client.name);
  const ok = verdictIs('ok');
  const results = await db.batch([
    sql`WITH r AS (
        SELECT t.grant_id, g.app_id, g.installation_id, g.user_id, g.scopes, g.state <> 'active' AS revoked, u.state = 'active' AS teammate_active,
               t.used_at, t.expires_at
          FROM ${oauthRefreshTokens} t JOIN ${oauthGrants} g ON g.id = t.grant_id JOIN ${users} u ON u.id = g.user_id
         WHERE t.token_hash = ${hash} FOR UPDATE OF t)
      SELECT r.grant_id AS "grantId", r.installation_id AS "installationId", r.user_id AS "userId", r.scopes AS stored,
             ${scopes} AS scopes, ${beyond} AS beyond, ${remember(VERDICT, verdict)} AS verdict
        FROM (SELECT 1) one LEFT JOIN r ON true`,
    db.http
      .update(oauthGrants)
      .set(REVOKED)
      .where(and(eq(oauthGrants.id, grant), eq(oauthGrants.state, 'active'), verdictIs('reused')))
      .getSQL(),
    // the grant as its app allows it now, or as the request narrows it
    sql`UPDATE ${oauthGrants} g SET scopes = n.scopes FROM (SELECT ${scopes} AS scopes FROM ${oauthGrants} r WHERE r.id = ${grant}) n
         WHERE g.id = ${grant} AND g.scopes IS DISTINCT FROM n.scopes AND ${ok}`,
    db.http
      .update(oauthRefreshTokens)
      .set({ usedAt: sql`now()` })
      .where(and(eq(oauthRefreshTokens.tokenHash, hash), ok))
      .getSQL(),
    sql`UPDATE ${credentials} SET state = 'deleted', deleted_at = now(), deleted_by = user_id
         WHERE grant_id = ${grant} AND state = 'active' AND ${ok}`,
    ...issued.statements,
    ownerQuery(
      sql`(u.id, u.installation_id) = (SELECT g.user_id, g.installation_id FROM ${oauthGrants} g WHERE g.id = ${grant}) AND ${ok}`,
    ),
  ]);
  const row = results[0]![0] as {
    grantId: number | null;
    installationId: number;
    userId: number;
    scopes: OAuthScope[];
    beyond: string | null;
    verdict: string;
  };
  // a token of the grant was spent, or the grant revoked: this isolate forgets its access tokens at once
  if (row.verdict !== 'unknown' && row.verdict !== 'revoked') forgetCredentials({ grantId: row.grantId! });
  if (row.verdict === 'beyond') throw new OAuthError('invalid_scope', `the grant does not include ${row.beyond}`);
  if (row.verdict !== 'ok') throw new OAuthError('invalid_grant', REFRESH_REFUSALS[row.verdict]!);
  return tokensIssued(issued, row, results);
}

/**
 * RFC 7009: a refresh token revokes its grant, an access token itself. A token that is unknown,
 * already revoked, or another app's changes nothing and is answered alike, so the answer tells
 * nobody what a token is.
 */
export async function revokeToken(db: Database, client: OAuthClient, token: string): Promise<void> {
  const hash = await hashSecret(token);
  // one statement: a refresh token of this app revokes its grant; anything else, an access token of this app itself
  const refresh = sql`SELECT t.grant_id FROM ${oauthRefreshTokens} t JOIN ${oauthGrants} g ON g.id = t.grant_id WHERE t.token_hash = ${hash} AND g.app_id = ${client.id}`;
  const { rows } = await db.http.execute(sql`
    WITH grant_ended AS (
      UPDATE ${oauthGrants} SET state = 'deleted', deleted_at = now(), updated_at = now()
       WHERE id IN (${refresh}) AND state = 'active' RETURNING id),
    access_ended AS (
      UPDATE ${credentials} SET state = 'deleted', deleted_at = now()
       WHERE secret_hash = ${hash} AND kind = 'oauth_access_token' AND state = 'active' AND NOT EXISTS (${refresh})
         AND grant_id IN (SELECT id FROM ${oauthGrants} WHERE app_id = ${client.id})
      RETURNING id)
    SELECT (SELECT grant_id FROM (${refresh}) r LIMIT 1) AS "grantId", (SELECT array_agg(id) FROM access_ended) AS "credentialIds"`);
  const { grantId, credentialIds } = rows[0] as { grantId: number | null; credentialIds: number[] | null };
  if (grantId !== null) forgetCredentials({ grantId });
  for (const id of credentialIds ?? []) forgetCredentials({ credentialId: id });
}

/** Who a token answer names: the teammate and their helpdesk. */
export interface TokenOwner {
  userId: number;
  firstName: string;
  lastName: string;
  email: string;
  role: string;
  installationId: number;
  installationName: string;
  siteName: string;
}

/** The query of the token owner (or owners) `where` selects (over `u`, the teammate, and `i`, their helpdesk). */
function ownerQuery(where: SQL): SQL {
  return sql`SELECT u.id AS "userId", u.first_name AS "firstName", u.last_name AS "lastName", u.email, u.role,
      i.id AS "installationId", i.name AS "installationName", i.site_name AS "siteName"
    FROM ${users} u JOIN ${installations} i ON i.id = u.installation_id WHERE ${where}`;
}

export async function tokenOwner(db: Database, installationId: number, userId: number): Promise<TokenOwner> {
  const { rows } = await db.http.execute(ownerQuery(sql`u.id = ${userId} AND u.installation_id = ${installationId}`));
  return rows[0] as unknown as TokenOwner;
}
