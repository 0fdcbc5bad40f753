import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import { helpdocArticles } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { textParam } from '../../http/params';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { articleSummary, PUBLIC_HEADERS, PUBLIC_READ, publicSiteOf, readable, summaryColumns } from './public-site';

const articleParams = z.object({ subdomain: textParam("the site's subdomain"), slug: textParam("the article's slug") });

const publicArticle = z
  .object({
    ...articleSummary,
    contents: z.string().meta({ description: 'sanitized HTML' }),
    relatedArticles: z
      .array(z.object({ id: z.number().int(), title: z.string(), slug: z.string() }))
      .meta({ description: 'those of its related articles the public may read' }),
  })
  .meta({ id: 'PublicHelpDocArticle' });

export const getPublicHelpDocArticleRoute = defineRoute(
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
