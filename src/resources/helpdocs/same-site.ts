import { and, eq, inArray } from 'drizzle-orm';
import { helpdocArticles, helpdocCategories } from '../../db/schema';
import type { WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';

/**
 * The site a category or article belongs to: the one the body names, else the stored one. It
 * cannot change: a record stays with its site (make one on the other).
 */
export async function siteOf(
  { tx, who }: WriteContext,
  table: typeof helpdocArticles | typeof helpdocCategories,
  record: Record<string, unknown>,
  id: number | undefined,
  source: string,
): Promise<number> {
  if (id === undefined) return record.helpdocsite as number;
  const [stored] = await tx.select({ site: table.helpdocId }).from(table).where(and(eq(table.id, id), eq(table.installationId, who.installationId)));
  if (stored && record.helpdocsite !== undefined && record.helpdocsite !== stored.site) throw ApiError.invalid(source, 'it stays with its site: make one on the other site');
  return stored?.site ?? (record.helpdocsite as number);
}

/** Each id must be a live record of `table` on the site; `source` names the property (`helpDocArticle.categories`). */
export async function requireOnSite(
  { tx, who }: WriteContext,
  table: typeof helpdocArticles | typeof helpdocCategories,
  ids: readonly number[],
  site: number,
  source: string,
  what: string,
): Promise<void> {
  if (ids.length === 0) return;
  const found = await tx
    .select({ id: table.id })
    .from(table)
    .where(and(inArray(table.id, [...ids]), eq(table.installationId, who.installationId), eq(table.helpdocId, site), eq(table.state, 'active')));
  const known = new Set(found.map((row) => row.id));
  const index = ids.findIndex((id) => !known.has(id));
  if (index >= 0) throw ApiError.invalid(`${source}[${index}]`, `no ${what} ${ids[index]} on this site`);
}
