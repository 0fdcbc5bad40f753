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
