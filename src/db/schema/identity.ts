import { sql } from 'drizzle-orm';
import { date, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';

/** One helpdesk site: the tenant. */
export const installations = pgTable('installations', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  name: text('name').notNull(),
  siteName: text('site_name').notNull().unique(),
  createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  /** The billing cycle: payments fall on this date and every `billingInterval` after it. */
  billingAnchor: date('billing_anchor', { mode: 'string' }).notNull().default(sql`current_date`),
  billingInterval: text('billing_interval', { enum: ['month', 'year'] }).notNull().default('month'),
  /** AI add-on units per billing period, both streams together; 0 means no add-on. */
  aiAllowance: integer('ai_allowance').notNull().default(0),
});

export const USER_ROLES = ['owner', 'admin', 'agent', 'collaborator'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** Teammates. Collaborators have no seat. */
export const users = pgTable(
  'users',
  {
    ...auditColumns(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull().default(''),
    email: text('email').notNull(),
    role: text('role', { enum: USER_ROLES }).notNull(),
  },
  (t) => [
    uniqueIndex('users_installation_email_key')
      .on(t.installationId, sql`lower(${t.email})`)
      .where(sql`${t.state} = 'active'`),
  ],
);

export const CREDENTIAL_KINDS = ['api_key', 'oauth_access_token'] as const;

/**
 * API keys and OAuth access tokens. Only a SHA-256 digest of the secret is stored: the secrets
 * are 190+ bits of randomness, so a slow password hash would add latency to every request and
 * no protection. `prefix` lets an owner recognise a key without revealing it.
 */
export const credentials = pgTable(
  'credentials',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    installationId: integer('installation_id').notNull().references(() => installations.id),
    userId: integer('user_id').notNull().references(() => users.id),
    kind: text('kind', { enum: CREDENTIAL_KINDS }).notNull(),
    name: text('name').notNull().default(''),
    prefix: text('prefix').notNull(),
    secretHash: text('secret_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [uniqueIndex('credentials_secret_hash_key').on(t.secretHash), index('credentials_user_idx').on(t.userId)],
);
