import type { Context } from 'hono';
import type { AppEnv } from '../../../app-env';

/**
 * The authorization server's identifier (RFC 8414): `PUBLIC_URL` when set (the address clients
 * reach, behind any proxy), else the origin the request came to. Every OAuth address starts
 * with it, and the API's too (`installation.apiEndPoint`).
 */
export function issuer(c: Context<AppEnv>): string {
  return (c.env.PUBLIC_URL || new URL(c.req.url).origin).replace(/\/+$/, '');
}

export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  revoke: '/oauth/revoke',
  userinfo: '/oauth/userinfo',
  metadata: '/.well-known/oauth-authorization-server',
} as const;
