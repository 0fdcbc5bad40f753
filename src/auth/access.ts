import type { UserRole } from '../db/schema';
import { ApiError } from '../http/errors';
import type { Principal } from './principal';

/** Every role with a seat and the collaborator: who may read. */
export const EVERYONE: readonly UserRole[] = ['owner', 'admin', 'agent', 'collaborator'];
/** Seated teammates: who may change the helpdesk's records. */
export const AGENTS: readonly UserRole[] = ['owner', 'admin', 'agent'];
export const ADMINS: readonly UserRole[] = ['owner', 'admin'];

/** 403 unless the caller's role is one of `allowed`. */
export function requireRole(principal: Principal, allowed: readonly UserRole[]): void {
  if (!allowed.includes(principal.role)) {
    throw ApiError.forbidden(`the ${principal.role} role may not do this; it needs one of: ${allowed.join(', ')}`);
  }
}

const READS = new Set(['GET', 'HEAD']);

/**
 * 403 when an OAuth token's scopes do not cover the request: `desk:read` reads (GET, HEAD) only,
 * `desk` does all its teammate may. An API key is its teammate's whole power.
 */
export function requireScope(principal: Principal, method: string): void {
  const scopes = principal.oauth?.scopes;
  if (!scopes || scopes.includes('desk') || (READS.has(method) && scopes.includes('desk:read'))) return;
  throw ApiError.forbidden(
    `this OAuth token's scope (${scopes.join(' ') || 'none'}) does not allow ${method}: it needs the desk scope`,
  );
}

/**
 * 403 for an OAuth token: what makes lasting credentials (an API key, an OAuth app) asks for the
 * teammate's own key, so a token that expires and can be revoked never outlives itself.
 */
export function requireOwnCredential(principal: Principal): void {
  if (principal.oauth)
    throw ApiError.forbidden('an OAuth token cannot make or manage credentials; call with an API key');
}
