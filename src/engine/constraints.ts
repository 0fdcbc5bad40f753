import { sqlState } from '../db/errors';
import { ApiError } from '../http/errors';
import type { ResourceDeclaration } from './types';

const CONSTRAINT_VIOLATIONS: Record<string, 400 | 409> = {
  '23505': 409, // unique
  '23P01': 409, // exclusion (a deferred uniqueness)
  '23514': 400, // check
  '23503': 400, // foreign key
  '23502': 400, // not null
};

/** A write that lost to a simultaneous one (a deadlock, a serialization failure): the client may simply retry. */
const LOST_RACE = new Set(['40P01', '40001']);

/** Turns a violation of a constraint into its 409 or 400, and a lost race into a 409; anything else goes on as it was. */
export function translateDbError(error: unknown, resource: ResourceDeclaration): unknown {
  const { code, constraint } = sqlState(error);
  if (code && LOST_RACE.has(code))
    return ApiError.conflict(resource.singular, 'a simultaneous change got in the way; try again');
  const status = code ? CONSTRAINT_VIOLATIONS[code] : undefined;
  if (!status) return error;
  const known = constraint ? resource.constraints?.[constraint] : undefined;
  const entry = known ?? {
    source: resource.singular,
    detail: status === 409 ? 'conflicts with an existing record' : 'breaks a rule of this record',
  };
  return new ApiError(status, [{ code: status === 409 ? 'conflict' : 'invalid', ...entry }]);
}
