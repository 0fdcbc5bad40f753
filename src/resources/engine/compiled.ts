import type { Column, SQL } from 'drizzle-orm';
import { filterFieldsOf, orderFieldsOf } from './fields';
import type { FilterFields } from './filter';
import type { ResourceDeclaration } from './resource';
import { schemasOf } from './schemas';

export interface CompiledResource {
  filterFields: FilterFields;
  orderFields: Record<string, Column | SQL>;
  includeNames: string[];
  schemas: ReturnType<typeof schemasOf>;
}

const memo = new WeakMap<ResourceDeclaration, CompiledResource>();

/** What the routes derive from a declaration, derived once per isolate. */
export function compiled(resource: ResourceDeclaration): CompiledResource {
  let result = memo.get(resource);
  if (!result) {
    result = {
      filterFields: filterFieldsOf(resource),
      orderFields: orderFieldsOf(resource),
      includeNames: Object.keys(resource.relations),
      schemas: schemasOf(resource),
    };
    memo.set(resource, result);
  }
  return result;
}
