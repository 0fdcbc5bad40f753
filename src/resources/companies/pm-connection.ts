import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Env } from '../../app-env';
import type { Database } from '../../db/client';
import { pmConnections } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { decryptToken, pmTokenContext } from '../../lib/crypto';
import { destinationRules, refusedDestination } from '../../lib/outbound/destination';

export interface PmSettings {
  baseUrl: string;
  token: string;
}

/** How long the address check may wait for the resolver. */
const RESOLVER_TIMEOUT_MS = 5_000;

/**
 * Why the product may not be called at `baseUrl`, or undefined when it may: the webhooks'
 * destination rules (an https address that is and resolves only to public addresses; the local
 * stack's allowance of `scripts/worker-vars.ts` applies alike). The bearer token goes there.
 */
export function refusedPmAddress(baseUrl: string, env: Env): Promise<string | undefined> {
  return refusedDestination(baseUrl, destinationRules(env), AbortSignal.timeout(RESOLVER_TIMEOUT_MS));
}

/**
 * The installation's project-management settings with the token decrypted; 409 when there are
 * none to use, or when the stored address is refused now (stored before the rule, or its name
 * resolves elsewhere since).
 */
export async function loadPmSettings(db: Database, env: Env, installationId: number): Promise<PmSettings> {
  const [row] = await db.http
    .select({ baseUrl: pmConnections.baseUrl, tokenCiphertext: pmConnections.tokenCiphertext })
    .from(pmConnections)
    .where(and(eq(pmConnections.installationId, installationId), eq(pmConnections.state, 'active')));
  return pmSettingsOf(env, installationId, row);
}

/** The installation's live connection row, as a statement to read beside others (`pmSettingsOf` makes the settings of its row). */
export const pmConnectionRead = (installationId: number): SQL =>
  sql`SELECT base_url AS "baseUrl", token_ciphertext AS "tokenCiphertext" FROM pm_connections WHERE installation_id = ${installationId} AND state = 'active'`;

/** `loadPmSettings` from the connection's row, read already (none: no connection). */
export async function pmSettingsOf(
  env: Env,
  installationId: number,
  row: { baseUrl: string; tokenCiphertext: string } | undefined,
): Promise<PmSettings> {
  if (!row) {
    throw ApiError.conflict(
      'pmconnection',
      'no project-management connection is configured for this installation; an owner or admin sets one with PUT /v2/pmconnection.json',
    );
  }
  const token = await decryptToken(row.tokenCiphertext, env.PM_TOKEN_KEY, pmTokenContext(installationId));
  if (token === undefined) {
    throw ApiError.conflict(
      'pmconnection',
      'the stored project-management token cannot be decrypted (the key changed?); set it again with PUT /v2/pmconnection.json',
    );
  }
  const refused = await refusedPmAddress(row.baseUrl, env);
  if (refused) {
    throw ApiError.conflict(
      'pmconnection',
      `the project-management address is refused: ${refused}; an owner or admin sets another with PUT /v2/pmconnection.json`,
    );
  }
  return { baseUrl: row.baseUrl, token };
}
