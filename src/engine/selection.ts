import type { SQL } from 'drizzle-orm';
import type { Actor } from '../auth/principal';
import { compileFilter, parseFilter } from './filter';
import type { QueryableFields } from './compiled';

/** Whether a parsed filter names the field anywhere, under `$and`/`$or` too. */
function names(filter: unknown, field: string): boolean {
  if (Array.isArray(filter)) return filter.some((item) => names(item, field));
  if (filter === null || typeof filter !== 'object') return false;
  return Object.entries(filter).some(([key, value]) => key === field || (key.startsWith('$') && names(value, field)));
}

export interface FilterSelection {
  who: Actor;
  where: SQL | undefined;
  /** a filter on `state` reaches deleted records too */
  withDeleted: boolean;
}

/** The records a `filter` parameter selects in the caller's installation. */
export function selectionFromFilter(raw: string | undefined, fields: QueryableFields, who: Actor): FilterSelection {
  const filter = parseFilter(raw);
  return {
    who,
    where: compileFilter(filter, fields.filterFields),
    withDeleted: names(filter, 'state'),
  };
}
