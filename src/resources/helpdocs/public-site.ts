import { and, asc, eq, isNotNull, sql, type SQL } from 'drizzle-orm';
import type { Context, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app-env';
import type { Database } from '../../db/client';
import { helpdocArticles, helpdocs } from '../../db/schema';
import { isoTime } from '../../engine';
import { ApiError } from '../../http/errors';
import { textParam } from '../../http/params';
import { errorResponse } from '../../http/responses';
import { limitPublicReads } from '../../ratelimit/address-guard';

/**
 * The public help centre: what a customer-facing site (or the chat widget) reads without a
 * credential. Only a live site with `publicSiteEnabled`, and only its published articles that are
 * not private; anything else is a 404, so nobody learns a draft exists. Answers may be cached for
 * a minute and read from any origin (no credential, so no CORS risk).
 */
export const PUBLIC_HEADERS = { 'Cache-Control': 'public, max-age=60', 'Access-Control-Allow-Origin': '*' };

/** Every answer of a public route may be read by a page on any origin, its refusals (404, 429 with `Retry-After`) too. */
const anyOrigin: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  c.res.headers.set('Access-Control-Allow-Origin', '*');
  c.res.headers.set('Access-Control-Expose-Headers', 'Retry-After');
};

/** Each public route: readable from any origin, limited per client address (`limitPublicReads`), and its 429 declared. */
export const PUBLIC_READ = {
  middleware: [anyOrigin, limitPublicReads],
  tooMany: {
    429: errorResponse(
      'more requests a minute from this address than `PUBLIC_READS_PER_MINUTE` (600): try again after `Retry-After` seconds',
    ),
  },
};

export const siteParams = z.object({ subdomain: textParam("the site's subdomain") });

export const articleSummary = {
  id: z.number().int(),
  title: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  categories: z.array(z.number().int()),
  popularity: z.number().int(),
  publishedAt: z.string().nullable(),
  updatedAt: z.string(),
};

/** A live public site by subdomain, or 404. */
export async function publicSiteOf(c: Context<AppEnv>, subdomain: string) {
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
export const readable = (site: { id: number; installationId: number }): SQL =>
  and(
    eq(helpdocArticles.installationId, site.installationId),
    eq(helpdocArticles.helpdocId, site.id),
    eq(helpdocArticles.state, 'active'),
    eq(helpdocArticles.status, 'published'),
    eq(helpdocArticles.isPrivate, false),
  )!;

export const summaryColumns = {
  id: helpdocArticles.id,
  title: helpdocArticles.title,
  slug: helpdocArticles.slug,
  description: helpdocArticles.description,
  categories: helpdocArticles.categories,
  popularity: helpdocArticles.popularity,
  publishedAt: sql<string | null>`${isoTime(helpdocArticles.publishedAt)}`,
  updatedAt: sql<string>`${isoTime(helpdocArticles.updatedAt)}`,
};
