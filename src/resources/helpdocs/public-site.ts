import { and, asc, desc, eq, inArray, isNotNull, sql, type SQL } from 'drizzle-orm';
import type { Context, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app-env';
import type { Database } from '../../db/client';
import { helpdocArticles, helpdocCategories, helpdocs } from '../../db/schema';
import { isoTime, pageMetadata, pageMetaSchema, pageSizeParam, paginationSchema } from '../../engine';
import { ApiError } from '../../http/errors';
import { MAX_ID, textParam } from '../../http/params';
import { storableText } from '../../lib/field-schemas';
import { errorResponse, jsonResponse } from '../../http/responses';
import { limitPublicReads } from '../../ratelimit/address-guard';
import { defineRoute } from '../../http/route';

/**
 * The public help centre: what a customer-facing site (or the chat widget) reads without a
 * credential. Only a live site with `publicSiteEnabled`, and only its published articles that are
 * not private; anything else is a 404, so nobody learns a draft exists. Answers may be cached for
 * a minute and read from any origin (no credential, so no CORS risk).
 */
const PUBLIC_HEADERS = { 'Cache-Control': 'public, max-age=60', 'Access-Control-Allow-Origin': '*' };

/** Every answer of a public route may be read by a page on any origin, its refusals (404, 429 with `Retry-After`) too. */
const anyOrigin: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  c.res.headers.set('Access-Control-Allow-Origin', '*');
  c.res.headers.set('Access-Control-Expose-Headers', 'Retry-After');
};

/** Each public route: readable from any origin, limited per client address (`limitPublicReads`), and its 429 declared. */
const PUBLIC_READ = {
  middleware: [anyOrigin, limitPublicReads],
  tooMany: {
    429: errorResponse(
      'more requests a minute from this address than `PUBLIC_READS_PER_MINUTE` (600): try again after `Retry-After` seconds',
    ),
  },
};

const siteParams = z.object({ subdomain: textParam("the site's subdomain") });
const articleParams = z.object({ subdomain: textParam("the site's subdomain"), slug: textParam("the article's slug") });

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

const articleSummary = {
  id: z.number().int(),
  title: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  categories: z.array(z.number().int()),
  popularity: z.number().int(),
  publishedAt: z.string().nullable(),
  updatedAt: z.string(),
};
const publicArticleSummary = z.object(articleSummary).meta({ id: 'PublicHelpDocArticleSummary' });
const publicArticle = z
  .object({
    ...articleSummary,
    contents: z.string().meta({ description: 'sanitized HTML' }),
    relatedArticles: z
      .array(z.object({ id: z.number().int(), title: z.string(), slug: z.string() }))
      .meta({ description: 'those of its related articles the public may read' }),
  })
  .meta({ id: 'PublicHelpDocArticle' });

/** A live public site by subdomain, or 404. */
async function publicSiteOf(c: Context<AppEnv>, subdomain: string) {
  const [site] = await c.var.db.http
    .select({
      id: helpdocs.id,
      installationId: helpdocs.installationId,
      name: helpdocs.name,
      description: helpdocs.description,
      metaSiteDescription: helpdocs.metaSiteDescription,
      subdomain: sql<string>`${helpdocs.subdomain}`,
      languageCode: helpdocs.languageCode,
      url: helpdocs.url,
      homePageLinkEnabled: helpdocs.homePageLinkEnabled,
      homePageLinkText: helpdocs.homePageLinkText,
      homePageURL: helpdocs.homePageUrl,
      headerBGColor: helpdocs.headerBgColor,
      navActiveColor: helpdocs.navActiveColor,
      navTextColor: helpdocs.navTextColor,
      pageBGColor: helpdocs.pageBgColor,
      linkColor: helpdocs.linkColor,
      textColor: helpdocs.textColor,
      showDateLastModified: helpdocs.showDateLastModified,
      contactFormEnabled: helpdocs.contactFormEnabled,
    })
    .from(helpdocs)
    .where(
      and(
        eq(helpdocs.subdomain, subdomain.toLowerCase()),
        eq(helpdocs.state, 'active'),
        eq(helpdocs.publicSiteEnabled, true),
      ),
    );
  if (!site) throw ApiError.notFound('subdomain', `no public help site ${subdomain}`);
  return site;
}

/**
 * The articles of `articleIds` a customer may read, wherever they are: published, not private, on a
 * live public site; with the site's subdomain, to read each at `/v2/helpdocs/{subdomain}/articles/{slug}.json`.
 */
export function publicArticleLinks(db: Database['http'], installationId: number, articleIds: SQL) {
  return db
    .select({
      id: helpdocArticles.id,
      title: helpdocArticles.title,
      slug: helpdocArticles.slug,
      description: helpdocArticles.description,
      subdomain: sql<string>`${helpdocs.subdomain}`,
    })
    .from(helpdocArticles)
    .innerJoin(
      helpdocs,
      and(eq(helpdocs.id, helpdocArticles.helpdocId), eq(helpdocs.installationId, helpdocArticles.installationId)),
    )
    .where(
      and(
        eq(helpdocArticles.installationId, installationId),
        sql`${helpdocArticles.id} IN ${articleIds}`,
        eq(helpdocArticles.state, 'active'),
        eq(helpdocArticles.status, 'published'),
        eq(helpdocArticles.isPrivate, false),
        eq(helpdocs.state, 'active'),
        eq(helpdocs.publicSiteEnabled, true),
        isNotNull(helpdocs.subdomain),
      ),
    )
    .orderBy(asc(helpdocArticles.displayOrder), asc(helpdocArticles.id));
}

export const publicArticleLink = z
  .object({
    id: z.number().int(),
    title: z.string(),
    slug: z.string(),
    description: z.string().nullable(),
    subdomain: z.string(),
  })
  .meta({ id: 'PublicHelpDocArticleLink' });

/** The articles a customer may read on the site. */
const readable = (site: { id: number; installationId: number }): SQL =>
  and(
    eq(helpdocArticles.installationId, site.installationId),
    eq(helpdocArticles.helpdocId, site.id),
    eq(helpdocArticles.state, 'active'),
    eq(helpdocArticles.status, 'published'),
    eq(helpdocArticles.isPrivate, false),
  )!;

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

const summaryColumns = {
  id: helpdocArticles.id,
  title: helpdocArticles.title,
  slug: helpdocArticles.slug,
  description: helpdocArticles.description,
  categories: helpdocArticles.categories,
  popularity: helpdocArticles.popularity,
  publishedAt: sql<string | null>`${isoTime(helpdocArticles.publishedAt)}`,
  updatedAt: sql<string>`${isoTime(helpdocArticles.updatedAt)}`,
};

export const publicSiteRoute = defineRoute(
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

const listQuery = z.object({
  search: storableText(1_000).pipe(z.string().trim().min(1)).optional().meta({
    description:
      'words to find (title, description, contents), the best matches first: quotes for a phrase, `-word` to leave out, `or` between alternatives',
  }),
  category: z.coerce
    .number()
    .int()
    .positive()
    .max(MAX_ID)
    .optional()
    .meta({ description: 'only articles under this category id' }),
  page: z.coerce.number().int().min(1).max(10_000).default(1).meta({ description: 'the page, from 1' }),
  pageSize: pageSizeParam,
});

export const publicArticlesRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/helpdocs/{subdomain}/articles.json',
    tag: 'HelpDocs',
    operationId: 'listPublicHelpDocArticles',
    public: true,
    summary: "A public help site's articles, or those a search finds, without a credential",
    description:
      'A page of the published, not private articles of a live public site (their summaries, without contents), in their display order; `search` finds words in the title, description and contents, the best matches first, and `category` keeps those under one category. A site that is not live and public is a 404. Readable from any origin and cached for a minute; each client address may make 600 public reads a minute, past that a 429 with `Retry-After`. See docs/resources/helpdocs.md.',
    request: { params: siteParams, query: listQuery },
    example: { params: { subdomain: 'acme-help' } },
    middleware: PUBLIC_READ.middleware,
    responses: {
      200: jsonResponse(
        'a page of articles',
        z.object({
          helpdocarticles: z.array(publicArticleSummary),
          meta: z.object({ page: pageMetaSchema }),
          pagination: paginationSchema,
        }),
      ),
      ...PUBLIC_READ.tooMany,
    },
  },
  async (c) => {
    const site = await publicSiteOf(c, c.req.valid('param').subdomain);
    const { search, category, page, pageSize } = c.req.valid('query');
    const query = search === undefined ? undefined : sql`websearch_to_tsquery('simple', ${search})`;
    const where = and(
      readable(site),
      query ? sql`${helpdocArticles.searchVector} @@ ${query}` : undefined,
      category === undefined ? undefined : sql`${helpdocArticles.categories} @> ARRAY[${category}]::integer[]`,
    );
    const order = query
      ? [
          desc(sql`ts_rank(${helpdocArticles.searchVector}, ${query})`),
          desc(helpdocArticles.popularity),
          asc(helpdocArticles.id),
        ]
      : [asc(helpdocArticles.displayOrder), asc(helpdocArticles.id)];
    const [articles, [total]] = await Promise.all([
      c.var.db.http
        .select(summaryColumns)
        .from(helpdocArticles)
        .where(where)
        .orderBy(...order)
        .limit(pageSize)
        .offset((page - 1) * pageSize),
      c.var.db.http
        .select({ count: sql<number>`count(*)::int` })
        .from(helpdocArticles)
        .where(where),
    ]);
    return c.json({ helpdocarticles: articles, ...pageMetadata(page, pageSize, total!.count) }, 200, PUBLIC_HEADERS);
  },
);

export const publicArticleRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/helpdocs/{subdomain}/articles/{slug}.json',
    tag: 'HelpDocs',
    operationId: 'getPublicHelpDocArticle',
    public: true,
    summary:
      'One published article of a public help site, without a credential; each read counts toward its popularity',
    description:
      'One published, not private article of a live public site, by its slug, with its contents and those of its related articles the public may read. Each read adds one to its `popularity`, counted after the answer, so the answer is not cached. A draft, a private article or a site that is not live and public is a 404, so nobody learns it exists; each client address may make 600 public reads a minute, past that a 429 with `Retry-After`. See docs/resources/helpdocs.md.',
    request: { params: articleParams },
    example: { params: { subdomain: 'acme-help', slug: 'resetting-your-password' } },
    middleware: PUBLIC_READ.middleware,
    responses: {
      200: jsonResponse('the article', z.object({ helpDocArticle: publicArticle })),
      ...PUBLIC_READ.tooMany,
    },
  },
  async (c) => {
    const { subdomain, slug } = c.req.valid('param');
    const site = await publicSiteOf(c, subdomain);
    const [article] = await c.var.db.http
      .select({ ...summaryColumns, contents: helpdocArticles.contents, relatedIds: helpdocArticles.relatedArticles })
      .from(helpdocArticles)
      .where(and(readable(site), eq(helpdocArticles.slug, slug.toLowerCase())));
    if (!article) throw ApiError.notFound('slug', `no published article ${slug} on this site`);
    // counted after the answer, off its path: a read is no write the reader waits for
    c.executionCtx.waitUntil(
      c.var.db.http
        .update(helpdocArticles)
        .set({ popularity: sql`${helpdocArticles.popularity} + 1` })
        .where(and(eq(helpdocArticles.id, article.id), eq(helpdocArticles.installationId, site.installationId)))
        .then(
          () => undefined,
          () => undefined,
        ),
    );
    const { relatedIds, ...shown } = article;
    const related =
      relatedIds.length === 0
        ? []
        : await c.var.db.http
            .select({ id: helpdocArticles.id, title: helpdocArticles.title, slug: helpdocArticles.slug })
            .from(helpdocArticles)
            .where(and(readable(site), inArray(helpdocArticles.id, relatedIds)))
            .orderBy(asc(helpdocArticles.displayOrder), asc(helpdocArticles.id));
    return c.json({ helpDocArticle: { ...shown, popularity: shown.popularity + 1, relatedArticles: related } }, 200, {
      ...PUBLIC_HEADERS,
      'Cache-Control': 'no-store',
    });
  },
);
