import { sql } from 'drizzle-orm';
import { boolean, date, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { auditColumns, globalAuditColumns } from './audit';
import { timeZones } from './business-hours';

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
  /** requests a teammate may make a minute (src/ratelimit); null: the deployment's default */
  rateLimitPerMinute: integer('rate_limit_per_minute'),
});

export const USER_ROLES = ['owner', 'admin', 'agent', 'collaborator'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** How a body is written: HTML, or Markdown rendered to HTML (a teammate's preference, a thread entry's). */
export const EDIT_METHODS = ['html', 'markdown'] as const;

/** Teammates. Collaborators have no seat. A deleted teammate is deactivated: its keys stop working. */
export const users = pgTable(
  'users',
  {
    ...auditColumns(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull().default(''),
    email: text('email').notNull(),
    role: text('role', { enum: USER_ROLES }).notNull(),
    avatarUrl: text('avatar_url'),
    editMethod: text('edit_method', { enum: EDIT_METHODS }).notNull().default('html'),
    isPartTime: boolean('is_part_time').notNull().default(false),
    reviewer: boolean('reviewer').notNull().default(false),
    timezoneId: integer('timezone_id').notNull().default(1).references(() => timeZones.id),
    /** 1: 12-hour clock, 2: 24-hour clock */
    timeFormatId: integer('time_format_id').notNull().default(1),
    sendPushNotifications: boolean('send_push_notifications').notNull().default(true),
    sendWebNotifications: boolean('send_web_notifications').notNull().default(true),
    autoFollowOnCC: boolean('auto_follow_on_cc').notNull().default(false),
  },
  (t) => [
    uniqueIndex('users_installation_email_key')
      .on(t.installationId, sql`lower(${t.email})`)
      .where(sql`${t.state} = 'active'`),
  ],
);

export const CREDENTIAL_KINDS = ['api_key', 'oauth_access_token'] as const;

/**
 * API keys and OAuth access tokens; a revoked one is deleted (`state`). Only a SHA-256 digest of the secret is stored: the secrets
 * are 190+ bits of randomness, so a slow password hash would add latency to every request and
 * no protection. `prefix` lets an owner recognise a key without revealing it.
 */
export const credentials = pgTable(
  'credentials',
  {
    ...globalAuditColumns(),
    installationId: integer('installation_id').notNull().references(() => installations.id),
    userId: integer('user_id').notNull().references(() => users.id),
    kind: text('kind', { enum: CREDENTIAL_KINDS }).notNull(),
    name: text('name').notNull().default(''),
    prefix: text('prefix').notNull(),
    secretHash: text('secret_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }),
    /** when it last authenticated a request, to about a minute (authenticate.ts) */
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [uniqueIndex('credentials_secret_hash_key').on(t.secretHash), index('credentials_user_idx').on(t.userId)],
);
