import type { ResourceDeclaration } from './types';

/**
 * How many statements (or parts) each cache keeps. An entry is some 10 to 50 kB (a ticket with
 * every include, its text and its parts), and a client can ask every subset of a resource's
 * includes (2,048 for a ticket): unbounded, that fills the isolate's 128 MB. Past the bound the
 * least recently used entry leaves; a read it served is rendered again when asked.
 */
export const STATEMENT_CACHE_ENTRIES = 128;

/** Entries by key, at most `STATEMENT_CACHE_ENTRIES`, the least recently used leaving first. */
export class StatementCache<T> {
  readonly entries = new Map<string, T>();

  get(key: string, make: () => T): T {
    let entry = this.entries.get(key);
    if (entry !== undefined) {
      this.entries.delete(key); // to the back: the most recently used
    } else {
      entry = make();
      if (this.entries.size >= STATEMENT_CACHE_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(key, entry);
    return entry;
  }
}

/** A number per resource declaration, for the caches' keys (two declarations may share a type name). */
const resourceKeys = new WeakMap<ResourceDeclaration, number>();
let resourcesKeyed = 0;
const keyOf = (resource: ResourceDeclaration) => {
  let key = resourceKeys.get(resource);
  if (key === undefined) resourceKeys.set(resource, (key = resourcesKeyed++));
  return key;
};

/**
 * A cache entry per resource and includes, which must be in their canonical order
 * (`canonicalIncludes`), and per caller shape (`callerShape`) where the entry depends on it.
 */
export function byIncludes<T>(
  cache: StatementCache<T>,
  resource: ResourceDeclaration,
  includes: readonly string[],
  make: () => T,
  shape = '',
): T {
  return cache.get(`${keyOf(resource)}|${shape}|${includes.join(',')}`, make);
}
