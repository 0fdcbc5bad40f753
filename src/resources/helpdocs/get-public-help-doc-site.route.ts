import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { helpdocArticles, helpdocCategories } from '../../db/schema';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { PUBLIC_HEADERS, PUBLIC_READ, publicSiteOf, readable, siteParams } from './public-site';

const publicSite = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    metaSiteDescription: z.string().nullable(),
    subdomain: z.string(),
    languageCode: z.string(),
    url: z.string().nullable(),
    homePageLinkEnabled: z.boolean(),
    homePageLinkText: z.string().nullable(),
    homePageURL: z.string().nullable(),
    headerBGColor: z.string().nullable(),
    navActiveColor: z.string().nullable(),
    navTextColor: z.string().nullable(),
    pageBGColor: z.string().nullable(),
    linkColor: z.string().nullable(),
    textColor: z.string().nullable(),
    showDateLastModified: z.boolean(),
    contactFormEnabled: z.boolean(),
  })
  .meta({ id: 'PublicHelpDocSite' });

const publicCategory = z
  .object({
    id: z.number().int(),
    name: z.string(),
    slug: z.string(),
    description: z.string().nullable(),
    displayOrder: z.number().int(),
    parent: z.number().int().nullable(),
  })
  .meta({ id: 'PublicHelpDocCategory' });

/**
 * A category shows once it, or a category under it, holds an article the public may read: nobody
 * learns of drafts by their categories, and the tree a client draws has every parent it names.
 */
function shownCategory(site: { id: number; installationId: number }): SQL {
  const live = (alias: string) =>
    sql`${sql.raw(alias)}.installation_id = ${site.installationId} AND ${sql.raw(alias)}.helpdoc_id = ${site.id} AND ${sql.raw(alias)}.state = 'active'`;
  return sql`${helpdocCategories.id} IN (
    WITH RECURSIVE shown AS (
      SELECT c.id, c.parent_id FROM ${helpdocCategories} AS c
       WHERE ${live('c')} AND EXISTS (SELECT 1 FROM ${helpdocArticles} WHERE ${readable(site)} AND ${helpdocArticles.categories} @> ARRAY[c.id])
      UNION
      SELECT p.id, p.parent_id FROM ${helpdocCategories} AS p JOIN shown ON p.id = shown.parent_id WHERE ${live('p')}
    )
    SELECT id FROM shown)`;
}

export const getPublicHelpDocSiteRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/helpdocs/{subdomain}.json',
    tag: 'HelpDocs',
    operationId: 'getPublicHelpDocSite',
    public: true,
    summary: 'A public help site and its categories, without a credential',
    description:
      'A live help site with its public site enabled, by its subdomain: its public properties (name, colours, home page link, ...) and the categories that hold, themselves or under them, an article the public may read. Any other site is a 404, so nobody learns a draft exists. Readable from any origin and cached for a minute; each client address may make 600 public reads a minute, past that a 429 with `Retry-After`. See docs/resources/helpdocs.md.',
    request: { params: siteParams },
    example: { params: { subdomain: 'acme-help' } },
    middleware: PUBLIC_READ.middleware,
    responses: {
      200: jsonResponse('the site', z.object({ helpdocssite: publicSite, helpdoccategories: z.array(publicCategory) })),
      ...PUBLIC_READ.tooMany,
    },
  },
  async (c) => {
    const { id, installationId, ...site } = await publicSiteOf(c, c.req.valid('param').subdomain);
    const categories = await c.var.db.http
      .select({
        id: helpdocCategories.id,
        name: helpdocCategories.name,
        slug: helpdocCategories.slug,
        description: helpdocCategories.description,
        displayOrder: helpdocCategories.displayOrder,
        parent: helpdocCategories.parentId,
      })
      .from(helpdocCategories)
      .where(
        and(
          eq(helpdocCategories.installationId, installationId),
          eq(helpdocCategories.helpdocId, id),
          eq(helpdocCategories.state, 'active'),
          shownCategory({ id, installationId }),
        ),
      )
      .orderBy(asc(helpdocCategories.displayOrder), asc(helpdocCategories.id));
    return c.json({ helpdocssite: { id, ...site }, helpdoccategories: categories }, 200, PUBLIC_HEADERS);
  },
);
