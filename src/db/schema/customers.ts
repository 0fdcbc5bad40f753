import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';

/** The people an installation serves. */
export const customers = pgTable(
  'customers',
  {
    ...auditColumns(),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    email: text('email').notNull(),
    organization: text('organization'),
    jobTitle: text('job_title'),
    phone: text('phone'),
    mobile: text('mobile'),
    address: text('address'),
    notes: text('notes'),
    externalId: text('external_id'),
    extraData: jsonb('extra_data'),
    trusted: boolean('trusted').notNull().default(false),
    verifiedEmail: boolean('verified_email').notNull().default(false),
  },
  (t) => [
    index('customers_installation_email_idx').on(t.installationId, sql`lower(${t.email})`),
    index('customers_installation_organization_idx').on(t.installationId, t.organization),
  ],
);
