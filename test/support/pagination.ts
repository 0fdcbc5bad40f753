import { expect } from 'vitest';

/** The list body's `pagination` (the platform client's), as `meta.page` says it in other words. */
export function expectPagination(
  body: { meta: { page: Record<string, unknown> }; pagination: unknown },
  what?: string,
): void {
  const { page, pageSize, count, pages, hasMore } = body.meta.page;
  expect(body.pagination, what).toEqual({ records: count, pageSize, pages, page, hasMorePages: hasMore });
}
