import { and, eq } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv } from '../../../app-env';
import { hashSecret } from '../../../auth/secrets';
import { oauthApps, type OAuthScope } from '../../../db/schema';
import { addressGuard } from '../../../ratelimit/address-guard';
import { OAuthError } from './oauth-error';

/** An app, as the protocol's endpoints need it. */
export interface OAuthClient {
  id: number;
  installationId: number;
  name: string;
  clientId: string;
  clientType: 'confidential' | 'public';
  redirectUris: string[];
  scopes: OAuthScope[];
}

/** The live app of a `client_id` (not authenticated yet), and its secret's digest; undefined when there is none. */
export async function findClient(
  c: Context<AppEnv>,
  clientId: string,
): Promise<{ client: OAuthClient; secretHash: string | null } | undefined> {
  const [app] = await c.var.db.http
    .select({
      id: oauthApps.id,
      installationId: oauthApps.installationId,
      name: oauthApps.name,
      clientId: oauthApps.clientId,
      clientType: oauthApps.clientType,
      redirectUris: oauthApps.redirectUris,
      scopes: oauthApps.scopes,
      secretHash: oauthApps.secretHash,
    })
    .from(oauthApps)
    .where(and(eq(oauthApps.clientId, clientId), eq(oauthApps.state, 'active')));
  if (!app) return undefined;
  const { secretHash, scopes, ...rest } = app;
  return { client: { ...rest, scopes: scopes as OAuthScope[] }, secretHash };
}

/** `client_id` and `client_secret` from HTTP Basic, each form-encoded first (RFC 6749 2.3.1). */
function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  let decoded: string;
  try {
    decoded = atob(match[1]!);
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const unform = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/**
 * The app calling the token or revocation endpoint (RFC 6749 2.3): a confidential one by its
 * secret, in HTTP Basic (`client_secret_basic`) or the body (`client_secret_post`), never both; a
 * public one by its `client_id` alone. `invalid_client` otherwise. Failures count against the
 * client's address as failed sign-ins do (`ratelimit/address-guard.ts`), so secrets cannot be
 * guessed at speed.
 */
export async function authenticateClient(
  c: Context<AppEnv>,
  body: { client_id?: string; client_secret?: string },
): Promise<OAuthClient> {
  const authorization = c.req.header('authorization');
  const basic = basicCredentials(authorization);
  if (authorization && !basic)
    throw new OAuthError('invalid_client', 'the Authorization header is not HTTP Basic with client_id:client_secret');
  if (basic && body.client_secret !== undefined)
    throw new OAuthError(
      'invalid_request',
      'send the client secret once: in the Authorization header or in the body, not both',
    );
  if (basic && body.client_id !== undefined && body.client_id !== basic.id)
    throw new OAuthError('invalid_request', 'client_id in the body differs from the one in the Authorization header');
  const clientId = basic?.id ?? body.client_id;
  const secret = basic?.secret ?? body.client_secret;
  if (!clientId)
    throw new OAuthError(
      'invalid_client',
      'no client_id: send it in the body, or client_id:client_secret as HTTP Basic',
    );
  const guard = addressGuard(c);
  await guard?.before();
  const found = await findClient(c, clientId);
  const refuse = async (detail: string): Promise<never> => {
    await guard?.failed();
    throw new OAuthError('invalid_client', detail);
  };
  if (!found) return refuse('no app has this client_id');
  if (found.client.clientType === 'public') return secret ? refuse('a public app has no client secret') : found.client;
  if (!secret) return refuse('this app is confidential: send its client secret');
  if ((await hashSecret(secret)) !== found.secretHash) return refuse('the client secret is wrong');
  return found.client;
}
