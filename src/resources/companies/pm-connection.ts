import { and, eq } from 'drizzle-orm';
import type { Env } from '../../app-env';
import type { Database } from '../../db/client';
import { pmConnections } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { decryptToken, pmTokenContext, TokenKeyError } from '../../lib/crypto';

export interface PmSettings {
  baseUrl: string;
  token: string;
}

/** The server lacks (or has a bad) `PM_TOKEN_KEY`: nothing the caller can fix, so not a 4xx. */
export function tokenKeyMissing(error: TokenKeyError): ApiError {
  return new ApiError(503, [{ code: 'notConfigured', source: 'PM_TOKEN_KEY', detail: `the server cannot handle project-management tokens: ${error.message}` }]);
}

/** The installation's project-management settings with the token decrypted; 409 when there are none to use. */
export async function loadPmSettings(db: Database, env: Env, installationId: number): Promise<PmSettings> {
  const [row] = await db.http
    .select({ baseUrl: pmConnections.baseUrl, tokenCiphertext: pmConnections.tokenCiphertext })
    .from(pmConnections)
    .where(and(eq(pmConnections.installationId, installationId), eq(pmConnections.state, 'active')));
  if (!row) {
    throw ApiError.conflict('pmconnection', 'no project-management connection is configured for this installation; an owner or admin sets one with PUT /v2/pmconnection.json');
  }
  let token: string | undefined;
  try {
    token = await decryptToken(row.tokenCiphertext, env.PM_TOKEN_KEY, pmTokenContext(installationId));
  } catch (error) {
    if (error instanceof TokenKeyError) throw tokenKeyMissing(error);
    throw error;
  }
  if (token === undefined) {
    throw ApiError.conflict('pmconnection', 'the stored project-management token cannot be decrypted (the key changed?); set it again with PUT /v2/pmconnection.json');
  }
  return { baseUrl: row.baseUrl, token };
}
