import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';
import { customers } from './customers';
import { inboxes } from './inboxes';

export const COMPANY_PERMISSIONS = ['own', 'all'] as const;
/** `company`: matched to customers by email domain; `group`: a custom group of customers. */
export const COMPANY_KINDS = ['company', 'group'] as const;

export const companies = pgTable(
  'companies',
  {
    ...auditColumns(),
    name: text('name').notNull(),
    description: text('description'),
    details: text('details'),
    industry: text('industry'),
    website: text('website'),
    email: text('email'),
    permission: text('permission', { enum: COMPANY_PERMISSIONS }).notNull().default('all'),
    kind: text('kind', { enum: COMPANY_KINDS }).notNull().default('company'),
    note: text('note'),
    avatarPath: text('avatar_path'),
  },
  (t) => [
    // Unique among the installation's live companies, ignoring case: a deleted name can be reused.
    uniqueIndex('companies_installation_name_key')
      .on(t.installationId, sql`lower(${t.name})`)
      .where(sql`${t.state} = 'active'`),
    index('companies_installation_id_idx').on(t.installationId, t.id),
  ],
);

const companyRef = () =>
  integer('company_id')
    .notNull()
    .references(() => companies.id);

export const companyAddresses = pgTable(
  'company_addresses',
  {
    ...auditColumns(),
    companyId: companyRef(),
    line1: text('line1'),
    line2: text('line2'),
    city: text('city'),
    region: text('region'),
    postalCode: text('postal_code'),
    country: text('country'),
  },
  (t) => [index('company_addresses_company_idx').on(t.companyId)],
);

export const companyDomains = pgTable(
  'company_domains',
  { ...auditColumns(), companyId: companyRef(), name: text('name').notNull() },
  (t) => [index('company_domains_company_idx').on(t.companyId)],
);

export const PHONE_TYPES = ['work', 'mobile', 'home', 'fax', 'other'] as const;

export const companyPhones = pgTable(
  'company_phones',
  {
    ...auditColumns(),
    companyId: companyRef(),
    number: text('number').notNull(),
    type: text('type', { enum: PHONE_TYPES }).notNull().default('work'),
    countryCode: text('country_code'),
    extension: text('extension'),
  },
  (t) => [index('company_phones_company_idx').on(t.companyId)],
);

export const SOCIAL_LINK_TYPES = [
  'website',
  'linkedin',
  'twitter',
  'facebook',
  'instagram',
  'youtube',
  'github',
  'other',
] as const;

export const companySocialLinks = pgTable(
  'company_social_links',
  {
    ...auditColumns(),
    companyId: companyRef(),
    type: text('type', { enum: SOCIAL_LINK_TYPES }).notNull().default('other'),
    url: text('url').notNull(),
  },
  (t) => [index('company_social_links_company_idx').on(t.companyId)],
);

/** How time logged for the company's tickets is billed: at most one live row per company. */
export const companyTimelogSettings = pgTable(
  'company_timelog_settings',
  {
    ...auditColumns(),
    companyId: companyRef(),
    billable: boolean('billable').notNull().default(true),
    hourlyRate: numeric('hourly_rate', { precision: 12, scale: 2 }),
    currency: text('currency'),
  },
  (t) => [
    uniqueIndex('company_timelog_settings_company_key')
      .on(t.companyId)
      .where(sql`${t.state} = 'active'`),
  ],
);

export const companyCustomers = pgTable(
  'company_customers',
  {
    installationId: integer('installation_id').notNull(),
    companyId: companyRef(),
    customerId: integer('customer_id')
      .notNull()
      .references(() => customers.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
  },
  (t) => [
    primaryKey({ columns: [t.companyId, t.customerId] }),
    index('company_customers_customer_idx').on(t.customerId),
  ],
);

export const companyInboxes = pgTable(
  'company_inboxes',
  {
    installationId: integer('installation_id').notNull(),
    companyId: companyRef(),
    inboxId: integer('inbox_id')
      .notNull()
      .references(() => inboxes.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.inboxId] }), index('company_inboxes_inbox_idx').on(t.inboxId)],
);
