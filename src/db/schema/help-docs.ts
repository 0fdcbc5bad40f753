import { sql } from 'drizzle-orm';
import {
  boolean,
  customType,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';
import { EDIT_METHODS } from './identity';
import { inboxes } from './inboxes';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/**
 * Help-docs sites (`/v2/helpdocssites.json`, src/resources/helpdocs): a help centre of articles
 * in categories. A contact form names the sites it suggests (`helpdocs`); one with
 * `publicSiteEnabled` is read without a credential at `/v2/helpdocs/{subdomain}/...`.
 */
export const helpdocs = pgTable(
  'helpdocs',
  {
    ...auditColumns(),
    name: text('name').notNull(),
    /** the help centre's address, as a contact form shows it */
    url: text('url'),
    description: text('description'),
    metaSiteDescription: text('meta_site_description'),
    /** its public name: `/v2/helpdocs/{subdomain}/...`, unique among live sites */
    subdomain: text('subdomain'),
    customDomain: text('custom_domain'),
    publicSiteEnabled: boolean('public_site_enabled').notNull().default(false),
    languageCode: text('language_code').notNull().default('en'),
    contactFormEnabled: boolean('contact_form_enabled').notNull().default(true),
    showDateLastModified: boolean('show_date_last_modified').notNull().default(true),
    homePageLinkEnabled: boolean('home_page_link_enabled').notNull().default(false),
    homePageLinkText: text('home_page_link_text'),
    homePageUrl: text('home_page_url'),
    headerBgColor: text('header_bg_color'),
    navActiveColor: text('nav_active_color'),
    navTextColor: text('nav_text_color'),
    pageBgColor: text('page_bg_color'),
    linkColor: text('link_color'),
    textColor: text('text_color'),
    editMethod: text('edit_method', { enum: EDIT_METHODS }).notNull().default('html'),
    sendEmailsToInboxId: integer('send_emails_to_inbox_id').references(() => inboxes.id),
  },
  (t) => [
    uniqueIndex('helpdocs_subdomain_key')
      .on(t.subdomain)
      .where(sql`${t.state} = 'active'`),
  ],
);

/** Categories of a site's articles, optionally under a parent category. */
export const helpdocCategories = pgTable(
  'helpdoc_categories',
  {
    ...auditColumns(),
    helpdocId: integer('helpdoc_id')
      .notNull()
      .references(() => helpdocs.id),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    description: text('description'),
    displayOrder: integer('display_order').notNull().default(0),
    parentId: integer('parent_id').references((): AnyPgColumn => helpdocCategories.id),
  },
  (t) => [
    uniqueIndex('helpdoc_categories_slug_key')
      .on(t.helpdocId, t.slug)
      .where(sql`${t.state} = 'active'`),
  ],
);

export const HELPDOC_ARTICLE_STATUSES = ['draft', 'published'] as const;

/**
 * A site's articles: drafts, and published ones a customer reads (unless private). `search_vector`
 * is Postgres's own: title (weight A), description (B), and the contents' text without tags (C),
 * its first 100,000 characters (a tsvector holds at most 1 MB).
 */
export const helpdocArticles = pgTable(
  'helpdoc_articles',
  {
    ...auditColumns(),
    helpdocId: integer('helpdoc_id')
      .notNull()
      .references(() => helpdocs.id),
    title: text('title').notNull(),
    slug: text('slug').notNull(),
    description: text('description'),
    contents: text('contents').notNull().default(''),
    status: text('status', { enum: HELPDOC_ARTICLE_STATUSES }).notNull().default('draft'),
    isPrivate: boolean('is_private').notNull().default(false),
    displayOrder: integer('display_order').notNull().default(0),
    /** times the public site served it */
    popularity: integer('popularity').notNull().default(0),
    editMethod: text('edit_method', { enum: EDIT_METHODS }).notNull().default('html'),
    oldUrl: text('old_url'),
    disqusEnabled: boolean('disqus_enabled').notNull().default(false),
    /** ids of the site's categories it is filed under */
    categories: integer('categories')
      .array()
      .notNull()
      .default(sql`'{}'::integer[]`),
    /** ids of the site's articles it points readers to */
    relatedArticles: integer('related_articles')
      .array()
      .notNull()
      .default(sql`'{}'::integer[]`),
    publishedAt: timestamp('published_at', { withTimezone: true, precision: 3 }),
    searchVector: tsvector('search_vector').generatedAlwaysAs(
      sql`setweight(to_tsvector('simple', coalesce(title, '')), 'A') || setweight(to_tsvector('simple', coalesce(description, '')), 'B') || setweight(to_tsvector('simple', left(regexp_replace(contents, '<[^>]*>', ' ', 'g'), 100000)), 'C')`,
    ),
  },
  (t) => [
    uniqueIndex('helpdoc_articles_slug_key')
      .on(t.helpdocId, t.slug)
      .where(sql`${t.state} = 'active'`),
    index('helpdoc_articles_search_idx').using('gin', t.searchVector),
    index('helpdoc_articles_categories_idx').using('gin', t.categories),
  ],
);
