import { and, eq, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { AGENTS, EVERYONE } from '../../auth/access';
import type { Actor } from '../../auth/principal';
import { helpdocArticles, helpdocCategories } from '../../db/schema';
import { AUDIT_SET, defineResource, updateRecords, type WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';
import { optionalText } from '../../lib/field-schemas';
import { displayOrderField } from '../../lib/vocabulary-fields';
import { includedUsers } from '../users/user-shape';
import {
  onSiteCheck,
  placeOnSite,
  placeOnSitePlanned,
  plannedSite,
  requireOnSite,
  siteField,
  siteStaysCheck,
} from './same-site';
import { slugSchema } from './slug';

/** A category is on one site, its parent a category of the same site (never itself), its slug made from its name when absent. */
async function checkCategory(
  context: WriteContext,
  record: Record<string, unknown>,
  id: number | undefined,
): Promise<void> {
  const site = await placeOnSite(context, helpdocCategories, record, id, 'helpdoccategory', 'name');
  notOwnParent(record, id);
  if (typeof record.parent === 'number')
    await requireOnSite(context, helpdocCategories, [record.parent], site, 'helpdoccategory.parent', 'category');
}

function notOwnParent(record: Record<string, unknown>, id: number | undefined): void {
  if (typeof record.parent === 'number' && record.parent === id)
    throw ApiError.invalid('helpdoccategory.parent', 'a category cannot be its own parent');
}

/** `checkCategory` for a write sent as one batch (one round trip): in the Worker what needs no database, the site's rules as statements. */
function placeCategory(who: Actor, record: Record<string, unknown>, id: number | undefined): true {
  placeOnSitePlanned(who, helpdocCategories, record, id, 'helpdoccategory', 'name');
  notOwnParent(record, id);
  return true;
}

function categoryChecks(who: Actor, record: Record<string, unknown>, id: number | undefined): SQL[] {
  const parent = typeof record.parent === 'number' ? [record.parent] : [];
  return [
    ...siteStaysCheck(who, helpdocCategories, record, id, 'helpdoccategory'),
    ...onSiteCheck(
      who,
      helpdocCategories,
      parent,
      plannedSite(who, helpdocCategories, record, id),
      'helpdoccategory.parent',
      'category',
    ),
  ];
}

/** Categories of a site's articles (`/v2/helpdocssites/helpdoccategories.json`, beside the platform's articles path). Agents write. */
export const helpdocCategoriesResource = defineResource({
  type: 'helpdoccategories',
  path: 'helpdocssites/helpdoccategories',
  singular: 'helpdoccategory',
  title: { one: 'HelpDocCategory', many: 'HelpDocCategories', group: 'HelpDocs' },
  table: helpdocCategories,
  fields: {
    helpdocsite: siteField(helpdocCategories.helpdocId),
    name: { column: helpdocCategories.name, schema: z.string().trim().min(1).max(255), required: true },
    slug: {
      column: helpdocCategories.slug,
      schema: slugSchema.meta({ description: 'its address on the site; made from the name when absent' }),
    },
    description: { column: helpdocCategories.description, schema: optionalText(10_000) },
    displayOrder: displayOrderField(helpdocCategories.displayOrder),
    parent: {
      column: helpdocCategories.parentId,
      schema: z
        .number()
        .int()
        .positive()
        .nullable()
        .meta({ description: 'the id of the category it is under, on the same site; null at the top' }),
    },
  },
  filter: [...AUDIT_SET, 'helpdocsite', 'name', 'slug', 'displayOrder', 'parent'],
  defaultOrderBy: 'displayOrder',
  relations: { users: includedUsers() },
  constraints: {
    helpdoc_categories_slug_key: {
      source: 'helpdoccategory.slug',
      detail: 'the site has a category with this slug already',
    },
  },
  access: { read: EVERYONE, write: AGENTS },
  examples: {
    create: { helpdocsite: { id: 1 }, name: 'Accounts' },
    update: { description: 'Signing in and billing' },
  },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  beforeWrite: checkCategory,
  planned: {
    before: (who, record, id) => placeCategory(who, record, id),
    first: (_db, who, record, id) => categoryChecks(who, record, id),
  },
  // nothing names a deleted category: its articles leave it, its children move to the top (each
  // with its `updated` event)
  async afterDelete({ tx, who }, id) {
    const filed = and(
      eq(helpdocArticles.installationId, who.installationId),
      sql`${helpdocArticles.categories} @> ARRAY[${id}]::integer[]`,
    )!;
    await updateRecords(
      tx,
      who,
      { table: helpdocArticles, type: 'helpdocarticles', where: filed },
      { categories: sql`array_remove(${helpdocArticles.categories}, ${id})` },
      { categories: helpdocArticles.categories },
    );
    const children = and(eq(helpdocCategories.installationId, who.installationId), eq(helpdocCategories.parentId, id))!;
    await updateRecords(
      tx,
      who,
      { table: helpdocCategories, type: 'helpdoccategories', where: children },
      { parentId: null },
      { parent: helpdocCategories.parentId },
    );
  },
});
