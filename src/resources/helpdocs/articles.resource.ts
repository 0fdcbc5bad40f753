import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { AGENTS, EVERYONE } from '../../auth/access';
import type { Actor } from '../../auth/principal';
import { EDIT_METHODS, HELPDOC_ARTICLE_STATUSES, helpdocArticles, helpdocCategories } from '../../db/schema';
import type { EditMethod } from '../../lib/html/message-body';
import {
  AUDIT_SET,
  defineResource,
  timeProperty,
  updateRecords,
  updateStatement,
  type Writer,
  type WriteContext,
} from '../../engine';
import { ApiError } from '../../http/errors';
import { messageHtml } from '../../lib/html/message-body';
import { MAX_ID } from '../../http/params';
import { optionalText, storableText } from '../../lib/field-schemas';
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

/**
 * Ids, each once. The platform's Go client sends `categories` it was not given as null (its
 * `[]int` has no omitempty): null leaves them as they are (none on a create).
 */
const ids = (description: string) =>
  z
    .array(z.number().int().positive())
    .max(100)
    .nullable()
    .transform((list) => (list === null ? null : [...new Set(list)]))
    .meta({ description: `${description}; null leaves them as they are` });

/** The article's stored way of writing, for contents sent without `editMethod`. */
async function storedEditMethod({ tx, who }: WriteContext, id: number): Promise<EditMethod> {
  const [row] = await tx
    .select({ editMethod: helpdocArticles.editMethod })
    .from(helpdocArticles)
    .where(and(eq(helpdocArticles.id, id), eq(helpdocArticles.installationId, who.installationId)));
  return row?.editMethod ?? 'html';
}

/** The body's lists sent as null leave them as they are. */
function dropNullLists(record: Record<string, unknown>): void {
  for (const name of ['categories', 'relatedArticles']) if (record[name] === null) delete record[name];
}

/** An article is not related to itself. */
function notSelfRelated(record: Record<string, unknown>, id: number | undefined): void {
  const related = record.relatedArticles;
  if (id !== undefined && Array.isArray(related) && related.includes(id))
    throw ApiError.invalid(
      `helpDocArticle.relatedArticles[${related.indexOf(id)}]`,
      'an article is not related to itself',
    );
}

/**
 * An article is on one site; its categories and related articles are the same site's (never
 * itself); its slug is made from its title when absent; its contents are sanitized HTML (Markdown
 * rendered first when its `editMethod` says so), as a public page may show them.
 */
async function checkArticle(
  context: WriteContext,
  record: Record<string, unknown>,
  id: number | undefined,
): Promise<void> {
  const site = await placeOnSite(context, helpdocArticles, record, id, 'helpDocArticle', 'title');
  dropNullLists(record);
  if (typeof record.contents === 'string') {
    const method =
      (record.editMethod as EditMethod | undefined) ??
      (id === undefined ? 'html' : await storedEditMethod(context, id));
    record.contents = messageHtml(record.contents, method);
  }
  if (Array.isArray(record.categories))
    await requireOnSite(
      context,
      helpdocCategories,
      record.categories as number[],
      site,
      'helpDocArticle.categories',
      'category',
    );
  if (Array.isArray(record.relatedArticles)) {
    notSelfRelated(record, id);
    await requireOnSite(
      context,
      helpdocArticles,
      record.relatedArticles as number[],
      site,
      'helpDocArticle.relatedArticles',
      'article',
    );
  }
}

/**
 * `checkArticle` for a write sent as one batch (one round trip), in the Worker: contents sent
 * without `editMethod` to a stored article are rendered each way, the update taking the one its
 * stored way of writing names.
 */
function placeArticle(who: Actor, record: Record<string, unknown>, id: number | undefined): true {
  placeOnSitePlanned(who, helpdocArticles, record, id, 'helpDocArticle', 'title');
  dropNullLists(record);
  notSelfRelated(record, id);
  if (typeof record.contents === 'string') {
    const contents = record.contents;
    const method = (record.editMethod as EditMethod | undefined) ?? (id === undefined ? 'html' : undefined);
    record.contents = method
      ? messageHtml(contents, method)
      : sql`CASE ${helpdocArticles.editMethod} ${sql.join(
          EDIT_METHODS.map((m) => sql`WHEN ${m} THEN ${messageHtml(contents, m)}`),
          sql` `,
        )} END`;
  }
  return true;
}

/** `checkArticle`'s site rules as statements of the batch. */
function articleChecks(who: Actor, record: Record<string, unknown>, id: number | undefined): SQL[] {
  const site = plannedSite(who, helpdocArticles, record, id);
  return [
    ...siteStaysCheck(who, helpdocArticles, record, id, 'helpDocArticle'),
    ...(Array.isArray(record.categories)
      ? onSiteCheck(
          who,
          helpdocCategories,
          record.categories as number[],
          site,
          'helpDocArticle.categories',
          'category',
        )
      : []),
    ...(Array.isArray(record.relatedArticles)
      ? onSiteCheck(
          who,
          helpdocArticles,
          record.relatedArticles as number[],
          site,
          'helpDocArticle.relatedArticles',
          'article',
        )
      : []),
  ];
}

/** The article, published and never before: its first publication is kept. */
const firstPublished = (who: Actor, id: number | SQL) => ({
  table: helpdocArticles,
  type: 'helpdocarticles',
  where: and(
    sql`${helpdocArticles.id} = ${id}`,
    eq(helpdocArticles.installationId, who.installationId),
    eq(helpdocArticles.status, 'published'),
    isNull(helpdocArticles.publishedAt),
  )!,
});
const PUBLISHED_AT = [{ publishedAt: sql`now()` }, { publishedAt: helpdocArticles.publishedAt }] as const;

/** The first time it is published is kept (`publishedAt`, with its `updated` event); a draft again keeps it. */
async function notePublished({ tx, who }: WriteContext, _record: Record<string, unknown>, id: number): Promise<void> {
  await updateRecords(tx, who, firstPublished(who, id), ...PUBLISHED_AT);
}

/** `notePublished` as a statement of the batch. */
const notePublishedStatement = (db: Writer, who: Actor, id: SQL) =>
  updateStatement(db, who, firstPublished(who, id), ...PUBLISHED_AT);

/**
 * Help-docs articles (`/v2/helpdocssites/helpdocarticles.json`, one wrapped as `helpDocArticle`),
 * as the platform's client has them: drafts and published ones, private ones (teammates only),
 * filed in categories. Agents write, everyone reads; `search` finds words in the title,
 * description and contents (Postgres full-text search), the public site's search too.
 */
export const helpdocArticlesResource = defineResource({
  type: 'helpdocarticles',
  path: 'helpdocssites/helpdocarticles',
  singular: 'helpDocArticle',
  title: { one: 'HelpDocArticle', many: 'HelpDocArticles', group: 'HelpDocs' },
  table: helpdocArticles,
  fields: {
    helpdocsite: siteField(helpdocArticles.helpdocId),
    title: { column: helpdocArticles.title, schema: z.string().trim().min(1).max(255), required: true },
    slug: {
      column: helpdocArticles.slug,
      schema: slugSchema.meta({ description: 'its address on the site; made from the title when absent' }),
    },
    description: { column: helpdocArticles.description, schema: optionalText(1_000) },
    contents: {
      column: helpdocArticles.contents,
      schema: z
        .string()
        .max(500_000)
        .meta({ description: 'HTML, sanitized (Markdown rendered first with `editMethod: markdown`)' }),
      digestInEvents: true,
    },
    status: {
      column: helpdocArticles.status,
      schema: z.enum(HELPDOC_ARTICLE_STATUSES).meta({ description: '`draft` (default) or `published`' }),
    },
    isPrivate: {
      column: helpdocArticles.isPrivate,
      schema: z.boolean().meta({ description: 'true: teammates only, never on the public site' }),
    },
    displayOrder: displayOrderField(helpdocArticles.displayOrder),
    popularity: {
      column: helpdocArticles.popularity,
      schema: z.number().int().meta({ description: 'times the public site served it' }),
      readOnly: true,
    },
    editMethod: { column: helpdocArticles.editMethod, schema: z.enum(EDIT_METHODS) },
    oldURL: { column: helpdocArticles.oldUrl, schema: optionalText(2_000) },
    disqusEnabled: { column: helpdocArticles.disqusEnabled, schema: z.boolean() },
    categories: { column: helpdocArticles.categories, schema: ids("ids of the site's categories it is filed under") },
    relatedArticles: {
      column: helpdocArticles.relatedArticles,
      schema: ids("ids of the site's articles it points readers to"),
    },
    publishedAt: {
      column: helpdocArticles.publishedAt,
      schema: z.unknown(),
      readOnly: true,
      output: timeProperty(helpdocArticles.publishedAt),
    },
  },
  filter: [
    ...AUDIT_SET,
    'helpdocsite',
    'title',
    'slug',
    'status',
    'isPrivate',
    'displayOrder',
    'popularity',
    'publishedAt',
  ],
  listParams: {
    search: {
      schema: storableText(1_000).pipe(z.string().trim().min(1)).optional().meta({
        description:
          'words to find in the title, description and contents: quotes for a phrase, `-word` to leave out, `or` between alternatives',
      }),
      where: async (_db, _who, value) =>
        value === undefined
          ? undefined
          : sql`${helpdocArticles.searchVector} @@ websearch_to_tsquery('simple', ${value as string})`,
    },
    category: {
      schema: z.coerce
        .number()
        .int()
        .positive()
        .max(MAX_ID)
        .optional()
        .meta({ description: 'only articles filed under this category id' }),
      where: async (_db, _who, value) =>
        value === undefined ? undefined : sql`${helpdocArticles.categories} @> ARRAY[${value as number}]::integer[]`,
    },
  },
  defaultOrderBy: 'displayOrder',
  relations: { users: includedUsers() },
  constraints: {
    helpdoc_articles_slug_key: {
      source: 'helpDocArticle.slug',
      detail: 'the site has an article with this slug already',
    },
  },
  access: { read: EVERYONE, write: AGENTS },
  examples: {
    create: {
      helpdocsite: { id: 1 },
      title: 'Resetting your password',
      contents: '<p>Open <b>Settings</b>, then <i>Security</i>.</p>',
      status: 'published',
    },
    update: { description: 'Three steps to a new password' },
  },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  beforeWrite: checkArticle,
  afterWrite: notePublished,
  planned: {
    before: (who, record, id) => placeArticle(who, record, id),
    first: (_db, who, record, id) => articleChecks(who, record, id),
    after: (db, who, _record, id) => [notePublishedStatement(db, who, id)],
  },
  // no article points to a deleted one: each that did changes, with its `updated` event
  async afterDelete({ tx, who }, id) {
    const where = and(
      eq(helpdocArticles.installationId, who.installationId),
      sql`${helpdocArticles.relatedArticles} @> ARRAY[${id}]::integer[]`,
    )!;
    await updateRecords(
      tx,
      who,
      { table: helpdocArticles, type: 'helpdocarticles', where },
      { relatedArticles: sql`array_remove(${helpdocArticles.relatedArticles}, ${id})` },
      { relatedArticles: helpdocArticles.relatedArticles },
    );
  },
});
