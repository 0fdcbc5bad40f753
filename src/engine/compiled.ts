import type { Column, SQL } from 'drizzle-orm';
import type { Actor } from '../auth/principal';
import { filterFieldsOf, orderFieldsOf } from './fields';
import type { FilterFields } from './filter';
import type { ResourceDeclaration } from './types';
import { schemasOf } from './schemas';

export interface CompiledResource {
  includeNames: string[];
  schemas: ReturnType<typeof schemasOf>;
}

const memo = new WeakMap<ResourceDeclaration, CompiledResource>();

/** What the routes derive from a declaration, derived once per isolate. */
export function compiled(resource: ResourceDeclaration): CompiledResource {
  let result = memo.get(resource);
  if (!result) {
    result = { includeNames: Object.keys(resource.relations), schemas: schemasOf(resource) };
    memo.set(resource, result);
  }
  return result;
}

/** The names `filter` and `orderBy` accept and what each stands for: computed fields may depend on the caller. */
export interface QueryableFields {
  filterFields: FilterFields;
  orderFields: Record<string, Column | SQL>;
}

export function queryableFields(resource: ResourceDeclaration, who: Actor): QueryableFields {
  return { filterFields: filterFieldsOf(resource, who), orderFields: orderFieldsOf(resource, who) };
}
