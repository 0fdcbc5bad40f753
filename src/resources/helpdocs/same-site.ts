import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import type { Actor } from '../../auth/principal';
import { helpdocArticles, helpdocCategories, helpdocs } from '../../db/schema';
import { refuseFirst, refuseWhen } from '../../db/refusal';
import { referenceField, referenceInput, type WritableField, type WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';
import { slugOf } from './slug';

/**
 * The site a category or article is on (`{"id": 7}`), required on a create. The platform's Go
 * client marshals a reference it was not given as `{"id": 0, "type": "", "meta": null}` (its
 * `EntityRef` is no pointer): on an update, where the site cannot change anyway, that names none.
 */
export function siteField(column: PgColumn): WritableField {
  const unset = z
    .object({ id: z.literal(0) })
    .loose()
    .transform(() => undefined);
  return {
    ...referenceField(column, { table: helpdocs, type: 'helpdocssites' }, { required: true }),
    schema: z.union([unset, referenceInput('helpdocssites')]),
  };
}

type SiteTable = typeof helpdocArticles | typeof helpdocCategories;

const STAYS = 'it stays with its site: make one on the other site';

/** The site the body names (none when it names the Go client's empty reference); a create must name one. */
function sentSite(record: Record<string, unknown>, id: number | undefined, source: string): number | undefined {
  if (record.helpdocsite === undefined) delete record.helpdocsite;
  if (id === undefined && record.helpdocsite === undefined)
    throw ApiError.invalid(source, 'must be set: the site it is on');
  return record.helpdocsite as number | undefined;
}

/**
 * The site a category or article belongs to: the one the body names, else the stored one. It
 * cannot change: a record stays with its site (make one on the other).
 */
async function siteOf(
  { tx, who }: WriteContext,
  table: SiteTable,
  record: Record<string, unknown>,
  id: number | undefined,
  source: string,
): Promise<number> {
  const sent = sentSite(record, id, source);
  if (id === undefined) return sent!;
  const [stored] = await tx
    .select({ site: table.helpdocId })
    .from(table)
    .where(and(eq(table.id, id), eq(table.installationId, who.installationId)));
  if (stored && sent !== undefined && sent !== stored.site) throw ApiError.invalid(source, STAYS);
  return stored?.site ?? sent!;
}

/** Each id must be a live record of `table` on the site; `source` names the property (`helpDocArticle.categories`). */
export async function requireOnSite(
  { tx, who }: WriteContext,
  table: SiteTable,
  ids: readonly number[],
  site: number,
  source: string,
  what: string,
): Promise<void> {
  if (ids.length === 0) return;
  const found = await tx
    .select({ id: table.id })
    .from(table)
    .where(
      and(
        inArray(table.id, [...ids]),
        eq(table.installationId, who.installationId),
        eq(table.helpdocId, site),
        eq(table.state, 'active'),
      ),
    );
  const known = new Set(found.map((row) => row.id));
  const index = ids.findIndex((id) => !known.has(id));
  if (index >= 0) throw ApiError.invalid(`${source}[${index}]`, `no ${what} ${ids[index]} on this site`);
}

/**
 * A slug free on the site, as SQL (so an insert can compute its own): `base`, or `base-2`,
 * `base-3`, ... when a live record of `table` has it (two articles titled alike, or titles of no
 * Latin letters, which all make `article`). Of the suffixes 2 to 2 + the number of slugs like
 * them, one is free.
 */
function freeSlugSql(who: Actor, table: SiteTable, site: number, base: string): SQL {
  // room for the suffix within the 200 characters a slug may have
  const stem = base.slice(0, 190).replace(/-+$/, '');
  const live = sql`${table.installationId} = ${who.installationId} AND ${table.helpdocId} = ${site} AND ${table.state} = 'active'`;
  const taken = (slug: SQL) => sql`EXISTS (SELECT 1 FROM ${table} WHERE ${live} AND ${table.slug} = ${slug})`;
  const suffixed = sql`${stem}::text || '-' || n`;
  return sql`(SELECT CASE WHEN NOT ${taken(sql`${base}::text`)} THEN ${base}::text ELSE (
    SELECT ${suffixed} FROM generate_series(2, 2 + (SELECT count(*)::int FROM ${table} WHERE ${live} AND ${table.slug} LIKE ${`${stem}-%`})) n
     WHERE NOT ${taken(suffixed)} ORDER BY n LIMIT 1) END)`;
}

async function freeSlug({ tx, who }: WriteContext, table: SiteTable, site: number, base: string): Promise<string> {
  const { rows } = await tx.execute(sql`SELECT ${freeSlugSql(who, table, site, base)} AS slug`);
  return String(rows[0]!.slug);
}

/**
 * Where a category or article goes (the prelude of both one's checks): its site (`siteOf`), and
 * on a create without a slug one made free on the site from its `named` property (title, name).
 */
export async function placeOnSite(
  context: WriteContext,
  table: SiteTable,
  record: Record<string, unknown>,
  id: number | undefined,
  wrapper: string,
  named: string,
): Promise<number> {
  const site = await siteOf(context, table, record, id, `${wrapper}.helpdocsite`);
  if (id === undefined && record.slug === undefined)
    record.slug = await freeSlug(context, table, site, slugOf(record[named] as string));
  return site;
}

/**
 * `placeOnSite` for a write sent as one batch (one round trip), in the Worker: the site a create
 * must name, and a create's free slug, which its insert computes.
 */
export function placeOnSitePlanned(
  who: Actor,
  table: SiteTable,
  record: Record<string, unknown>,
  id: number | undefined,
  wrapper: string,
  named: string,
): void {
  const sent = sentSite(record, id, `${wrapper}.helpdocsite`);
  if (id === undefined && record.slug === undefined)
    record.slug = freeSlugSql(who, table, sent!, slugOf(record[named] as string));
}

/**
 * The site of a record as placed (`placeOnSitePlanned`), as SQL for the checks of the batch: the
 * stored one on an update (an update of a record that is not there is refused, 404, before the
 * checks run).
 */
export function plannedSite(
  who: Actor,
  table: SiteTable,
  record: Record<string, unknown>,
  id: number | undefined,
): SQL {
  const sent = record.helpdocsite as number | undefined;
  if (id === undefined) return sql`${sent!}::int`;
  const stored = sql`(SELECT ${table.helpdocId} FROM ${table} WHERE ${table.id} = ${id}::int AND ${table.installationId} = ${who.installationId})`;
  return sent === undefined ? stored : sql`coalesce(${stored}, ${sent}::int)`;
}

/** `siteOf`'s refusal as a statement of the batch: an update naming a site other than the stored one. */
export function siteStaysCheck(
  who: Actor,
  table: SiteTable,
  record: Record<string, unknown>,
  id: number | undefined,
  wrapper: string,
): SQL[] {
  if (id === undefined || record.helpdocsite === undefined) return [];
  const moved = sql`EXISTS (SELECT 1 FROM ${table} WHERE ${table.id} = ${id}::int AND ${table.installationId} = ${who.installationId} AND ${table.helpdocId} <> ${record.helpdocsite as number}::int)`;
  return [refuseWhen(moved, 400, `${wrapper}.helpdocsite`, STAYS)];
}

/** `requireOnSite` as a statement of the batch, `site` as SQL. */
export function onSiteCheck(
  who: Actor,
  table: SiteTable,
  ids: readonly number[],
  site: SQL,
  source: string,
  what: string,
): SQL[] {
  const items = ids.map((id, n) => ({ id, source: `${source}[${n}]`, detail: `no ${what} ${id} on this site` }));
  const check = refuseFirst(
    items,
    (id) =>
      sql`NOT EXISTS (SELECT 1 FROM ${table} WHERE ${table.id} = ${id} AND ${table.installationId} = ${who.installationId} AND ${table.helpdocId} = ${site} AND ${table.state} = 'active')`,
  );
  return check ? [check] : [];
}
