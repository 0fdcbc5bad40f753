import { ApiError } from '../../http/errors';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 50;

export interface Paging {
  page: number;
  pageSize: number;
}

function positiveInteger(raw: string | undefined, name: string, fallback: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw ApiError.invalid(name, `must be a whole number from 1 to ${max}`);
  const value = Number(raw);
  if (value < 1 || value > max) throw ApiError.invalid(name, `must be a whole number from 1 to ${max}`);
  return value;
}

/** `page` from 1 and `pageSize` from 1 to 100; out of range is a 400, never a silent clamp. */
export function parsePaging(query: Record<string, string | undefined>): Paging {
  return {
    page: positiveInteger(query.page, 'page', 1, 1_000_000),
    pageSize: positiveInteger(query.pageSize, 'pageSize', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE),
  };
}

/** `includes`: a comma list of allowed names, or `all`. */
export function parseIncludes(raw: string | undefined, allowed: readonly string[]): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  const names = [...new Set(raw.split(',').map((name) => name.trim()).filter(Boolean))];
  if (names.includes('all')) return [...allowed];
  for (const name of names) {
    if (!allowed.includes(name)) {
      throw ApiError.invalid('includes', `unknown include "${name}"; allowed: ${[...allowed, 'all'].join(', ') || 'none'}`);
    }
  }
  return names;
}

export interface Ordering {
  /** absent: by id */
  name?: string;
  descending: boolean;
}

/** `orderBy` takes one allowed name, `orderMode` takes `asc` or `desc`. */
export function parseOrdering(query: Record<string, string | undefined>, allowed: readonly string[]): Ordering {
  const name = query.orderBy === '' ? undefined : query.orderBy;
  if (name !== undefined && !allowed.includes(name)) throw ApiError.invalid('orderBy', `unknown name "${name}"; allowed: ${allowed.join(', ')}`);
  const mode = (query.orderMode ?? 'asc').toLowerCase();
  if (mode !== 'asc' && mode !== 'desc') throw ApiError.invalid('orderMode', 'must be asc or desc');
  return { name, descending: mode === 'desc' };
}
