import { ApiError } from '../http/errors';
import type { ResourceDeclaration } from '../resources/engine/resource';

/** The SQLSTATE and constraint of a database error, from either driver mode, wrapped or not. */
export function sqlState(error: unknown): { code?: string; constraint?: string } {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const candidate = current as { code?: unknown; constraint?: unknown; cause?: unknown };
    if (typeof candidate.code === 'string' && /^[0-9A-Z]{5}$/.test(candidate.code)) {
      return { code: candidate.code, constraint: typeof candidate.constraint === 'string' ? candidate.constraint : undefined };
    }
    current = candidate.cause;
  }
  return {};
}

const CONSTRAINT_VIOLATIONS: Record<string, 400 | 409> = {
  '23505': 409, // unique
  '23514': 400, // check
  '23503': 400, // foreign key
  '23502': 400, // not null
};

/** Turns a violation of a constraint into its 409 or 400; anything else goes on as it was. */
export function translateDbError(error: unknown, resource: ResourceDeclaration): unknown {
  const { code, constraint } = sqlState(error);
  const status = code ? CONSTRAINT_VIOLATIONS[code] : undefined;
  if (!status) return error;
  const known = constraint ? resource.constraints?.[constraint] : undefined;
  const entry = known ?? { source: resource.singular, detail: status === 409 ? 'conflicts with an existing record' : 'breaks a rule of this record' };
  return new ApiError(status, [{ code: status === 409 ? 'conflict' : 'invalid', ...entry }]);
}
