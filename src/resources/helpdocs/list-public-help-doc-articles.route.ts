import { and, asc, desc, sql } from 'drizzle-orm';
import { z } from 'zod';
import { helpdocArticles } from '../../db/schema';
import { pageMetadata, pageMetaSchema, pageSizeParam, paginationSchema } from '../../engine';
import { MAX_ID } from '../../http/params';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { storableText } from '../../lib/field-schemas';
import {
  articleSummary,
  PUBLIC_HEADERS,
  PUBLIC_READ,
  publicSiteOf,
  readable,
  siteParams,
  summaryColumns,
} from './public-site';

const publicArticleSummary = z.object(articleSummary).meta({ id: 'PublicHelpDocArticleSummary' });

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

export const listPublicHelpDocArticlesRoute = defineRoute(
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
