import { and, eq, inArray, like, or } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { helpdocArticles, helpdocCategories, helpdocs } from '../../db/schema';
import { referenceField, referenceInput, type WritableField, type WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';
import { slugOf } from './slug';

/**
 * The site a category or article is on (`{"id": 7}`), required on a create. The platform's Go
 * client marshals a reference it was not given as `{"id": 0, "type": "", "meta": null}` (its
 * `EntityRef` is no pointer): on an update, where the site cannot change anyway, that names none.
 */
export function siteField(column: PgColumn): WritableField {
  const unset = z.object({ id: z.literal(0) }).loose().transform(() => undefined);
  return { ...referenceField(column, { table: helpdocs, type: 'helpdocssites' }, { required: true }), schema: z.union([unset, referenceInput('helpdocssites')]) };
}

/**
 * The site a category or article belongs to: the one the body names, else the stored one. It
 * cannot change: a record stays with its site (make one on the other).
 */
async function siteOf(
  { tx, who }: WriteContext,
  table: typeof helpdocArticles | typeof helpdocCategories,
  record: Record<string, unknown>,
  id: number | undefined,
  source: string,
): Promise<number> {
  if (record.helpdocsite === undefined) delete record.helpdocsite;
  if (id === undefined) {
    if (record.helpdocsite === undefined) throw ApiError.invalid(source, 'must be set: the site it is on');
    return record.helpdocsite as number;
  }
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

/**
 * A slug free on the site: `base`, or `base-2`, `base-3`, ... when a live record of `table` has it
 * (two articles titled alike, or titles of no Latin letters, which all make `article`).
 */
async function freeSlug({ tx, who }: WriteContext, table: typeof helpdocArticles | typeof helpdocCategories, site: number, base: string): Promise<string> {
  const taken = await tx
    .select({ slug: table.slug })
    .from(table)
    .where(and(eq(table.installationId, who.installationId), eq(table.helpdocId, site), eq(table.state, 'active'), or(eq(table.slug, base), like(table.slug, `${base}-%`))));
  const used = new Set(taken.map((row) => row.slug));
  if (!used.has(base)) return base;
  // room for the suffix within the 200 characters a slug may have
  const stem = base.slice(0, 190).replace(/-+$/, '');
  let n = 2;
  while (used.has(`${stem}-${n}`)) n++;
  return `${stem}-${n}`;
}

/**
 * Where a category or article goes (the prelude of both one's checks): its site (`siteOf`), and
 * on a create without a slug one made free on the site from its `named` property (title, name).
 */
export async function placeOnSite(
  context: WriteContext,
  table: typeof helpdocArticles | typeof helpdocCategories,
  record: Record<string, unknown>,
  id: number | undefined,
  wrapper: string,
  named: string,
): Promise<number> {
  const site = await siteOf(context, table, record, id, `${wrapper}.helpdocsite`);
  if (id === undefined && record.slug === undefined) record.slug = await freeSlug(context, table, site, slugOf(record[named] as string));
  return site;
}
