import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import { EDIT_METHODS, helpdocArticles, helpdocs, inboxes } from '../../db/schema';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { AUDIT_SET, defineResource, typed } from '../../engine';
import { optionalText } from '../../lib/field-schemas';
import { colorField } from '../../lib/vocabulary-fields';
import { includedUsers } from '../users/user-shape';

/** `#rrggbb`, or null for the site's default. */
const optionalColor = (column: PgColumn) => ({ column, schema: colorField(column).schema.nullable() });

const url = z
  .string()
  .trim()
  .url()
  .max(2000)
  .regex(/^https?:\/\//i, 'must be an http or https address')
  .nullable();

/**
 * Help-docs sites (`/v2/helpdocssites.json`), as the platform's client has them: a help centre's
 * name, public address (`subdomain`), look and settings. Admins write, everyone reads. A site with
 * `publicSiteEnabled` is read without a credential (`get-public-help-doc-site.route.ts`).
 */
export const helpdocSitesResource = defineResource({
  type: 'helpdocssites',
  singular: 'helpdocssite',
  title: { one: 'HelpDocSite', many: 'HelpDocSites', group: 'HelpDocs' },
  table: helpdocs,
  fields: {
    name: { column: helpdocs.name, schema: z.string().trim().min(1).max(255), required: true },
    description: { column: helpdocs.description, schema: optionalText(10_000) },
    metaSiteDescription: { column: helpdocs.metaSiteDescription, schema: optionalText(1_000) },
    subdomain: {
      column: helpdocs.subdomain,
      schema: z
        .string()
        .trim()
        .toLowerCase()
        .regex(
          /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
          'must be a host label: lowercase letters, digits and dashes, such as acme-help',
        )
        .nullable()
        .meta({
          description: 'its public name: the public site is `/v2/helpdocs/{subdomain}.json`; unique among sites',
        }),
    },
    customDomain: {
      column: helpdocs.customDomain,
      schema: z
        .string()
        .trim()
        .toLowerCase()
        .regex(
          /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/,
          'must be a host name such as help.example.com',
        )
        .nullable(),
    },
    url: {
      column: helpdocs.url,
      schema: url.meta({ description: "the help centre's address, as contact forms show it" }),
    },
    publicSiteEnabled: {
      column: helpdocs.publicSiteEnabled,
      schema: z
        .boolean()
        .meta({ description: 'true: its published articles that are not private are read without a credential' }),
    },
    languageCode: {
      column: helpdocs.languageCode,
      schema: z.string().regex(/^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/, 'must be a language tag such as en or pt-BR'),
    },
    contactFormEnabled: { column: helpdocs.contactFormEnabled, schema: z.boolean() },
    showDateLastModified: { column: helpdocs.showDateLastModified, schema: z.boolean() },
    homePageLinkEnabled: { column: helpdocs.homePageLinkEnabled, schema: z.boolean() },
    homePageLinkText: { column: helpdocs.homePageLinkText, schema: optionalText(255) },
    homePageURL: { column: helpdocs.homePageUrl, schema: url },
    headerBGColor: optionalColor(helpdocs.headerBgColor),
    navActiveColor: optionalColor(helpdocs.navActiveColor),
    navTextColor: optionalColor(helpdocs.navTextColor),
    pageBGColor: optionalColor(helpdocs.pageBgColor),
    linkColor: optionalColor(helpdocs.linkColor),
    textColor: optionalColor(helpdocs.textColor),
    editMethod: { column: helpdocs.editMethod, schema: z.enum(EDIT_METHODS) },
    stats: {
      column: helpdocs.id,
      schema: z.unknown(),
      readOnly: true,
      output: typed(
        sql`(SELECT json_build_object('articleCount', count(*)::int, 'publishedCount', (count(*) FILTER (WHERE ${helpdocArticles.status} = 'published'))::int,
              'unpublishedCount', (count(*) FILTER (WHERE ${helpdocArticles.status} <> 'published'))::int, 'draftCount', (count(*) FILTER (WHERE ${helpdocArticles.status} = 'draft'))::int)
             FROM ${helpdocArticles} WHERE ${helpdocArticles.helpdocId} = ${helpdocs.id} AND ${helpdocArticles.installationId} = ${helpdocs.installationId} AND ${helpdocArticles.state} = 'active')`,
        z
          .object({
            articleCount: z.number().int(),
            publishedCount: z.number().int(),
            unpublishedCount: z.number().int(),
            draftCount: z.number().int(),
          })
          .meta({
            id: 'HelpDocSiteStats',
            description: 'its live articles: all, published, not published (drafts), drafts',
          }),
      ),
    },
    sendEmailsToInboxId: {
      column: helpdocs.sendEmailsToInboxId,
      schema: z
        .number()
        .int()
        .positive()
        .nullable()
        .meta({ description: "the inbox its public contact form's messages go to (an id)" }),
      references: { table: inboxes, type: 'inboxes' },
    },
  },
  filter: [...AUDIT_SET, 'name', 'subdomain', 'publicSiteEnabled', 'languageCode'],
  relations: { users: includedUsers() },
  constraints: {
    helpdocs_subdomain_key: { source: 'helpdocssite.subdomain', detail: 'another site has this subdomain' },
  },
  ignored: [
    'contributors',
    'disqusShortname',
    'logoImage',
    'favicon',
    'touchIcon',
    'customStyleSheet',
    'htmlHeadCode',
    'password',
    'authenticationType',
    'authenticationTypeId',
    'showOnHomePage',
    'showSocialIcons',
    'searchTemplate',
    'homeTemplate',
    'headTemplate',
    'footerTemplate',
    'categoryTemplate',
    'articleTemplate',
  ],
  access: { read: EVERYONE, write: ADMINS },
  examples: {
    create: { name: 'Acme Help Centre', subdomain: 'acme-help', publicSiteEnabled: true },
    update: { metaSiteDescription: 'Answers from the Acme support team' },
  },
  operations: ['list', 'get', 'create', 'update', 'delete'],
});
