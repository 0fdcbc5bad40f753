import { and, type SQL } from 'drizzle-orm';
import type { Actor } from '../auth/principal';
import { filterFieldsOf } from './fields';
import { compileFilter, parseFilter } from './filter';
import { recordScope } from './scope';
import type { ResourceDeclaration } from './types';

/** Whether a parsed filter names the field anywhere, under `$and`/`$or` too. */
function names(filter: unknown, field: string): boolean {
  if (Array.isArray(filter)) return filter.some((item) => names(item, field));
  if (filter === null || typeof filter !== 'object') return false;
  return Object.entries(filter).some(([key, value]) => key === field || (key.startsWith('$') && names(value, field)));
}

interface FilterSelection {
  who: Actor;
  where: SQL | undefined;
  /** a filter on `state` reaches deleted records too */
  withDeleted: boolean;
}

/** The records a `filter` parameter selects in the caller's installation; no filter, no fields to build. */
export function selectionFromFilter(
  raw: string | undefined,
  resource: ResourceDeclaration,
  who: Actor,
): FilterSelection {
  const filter = parseFilter(raw);
  return {
    who,
    where: filter === undefined ? undefined : compileFilter(filter, filterFieldsOf(resource, who)),
    withDeleted: names(filter, 'state'),
  };
}

/** The caller's records a `filter` parameter selects, as one condition (deleted ones only when it asks about `state`). */
export function filteredScope(raw: string | undefined, resource: ResourceDeclaration, who: Actor): SQL {
  const selection = selectionFromFilter(raw, resource, who);
  return and(recordScope(resource, who, selection.withDeleted), selection.where)!;
}
