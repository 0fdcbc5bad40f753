import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';

export const CUSTOMER_PERMISSIONS = ['own', 'all'] as const;

/** How a customer came to be: through the API, a chat, an email, a ticket, an import, or a merge. */
export const CUSTOMER_ADD_METHODS = ['api', 'widget', 'email', 'ticket', 'import'] as const;

/** The people an installation serves. */
export const customers = pgTable(
  'customers',
  {
    ...auditColumns(),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    /** the value of the main email contact, kept here for lookups and lists */
    email: text('email').notNull(),
    organization: text('organization'),
    jobTitle: text('job_title'),
    phone: text('phone'),
    mobile: text('mobile'),
    address: text('address'),
    notes: text('notes'),
    externalId: text('external_id'),
    /** free text, as the platform's client reads it (a string) */
    extraData: text('extra_data'),
    trusted: boolean('trusted').notNull().default(false),
    verifiedEmail: boolean('verified_email').notNull().default(false),
    linkedinUrl: text('linkedin_url'),
    facebookUrl: text('facebook_url'),
    twitterHandle: text('twitter_handle'),
    avatarUrl: text('avatar_url'),
    welcomeEmailSent: boolean('welcome_email_sent').notNull().default(false),
    permission: text('permission', { enum: CUSTOMER_PERMISSIONS }).notNull().default('all'),
    addMethod: text('add_method', { enum: CUSTOMER_ADD_METHODS }).notNull().default('api'),
  },
  (t) => [
    index('customers_installation_email_idx').on(t.installationId, sql`lower(${t.email})`),
    index('customers_installation_organization_idx').on(t.installationId, t.organization),
  ],
);

export const CUSTOMER_CONTACT_TYPES = ['email', 'twitter', 'facebook', 'linkedin'] as const;

/**
 * The addresses a customer is reached at and found by. A value is one live customer's in its
 * installation, and a customer has one main contact of each type: both are deferred exclusion
 * constraints (added in the migration's SQL), so one write may move a value or the main mark.
 */
export const customerContacts = pgTable(
  'customer_contacts',
  {
    ...auditColumns(),
    customerId: integer('customer_id')
      .notNull()
      .references(() => customers.id),
    type: text('type', { enum: CUSTOMER_CONTACT_TYPES }).notNull().default('email'),
    value: text('value').notNull(),
    isMain: boolean('is_main').notNull().default(false),
  },
  (t) => [
    index('customer_contacts_customer_idx').on(t.customerId),
    index('customer_contacts_value_idx').on(t.installationId, sql`lower(${t.value})`),
  ],
);
