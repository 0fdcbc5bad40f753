import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  boolean,
  date,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { auditColumns, globalAuditColumns } from './audit';
import { timeZones } from './business-hours';

/** One helpdesk site: the tenant. */
export const installations = pgTable('installations', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  name: text('name').notNull(),
  siteName: text('site_name').notNull().unique(),
  createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  /** The billing cycle: payments fall on this date and every `billingInterval` after it. */
  billingAnchor: date('billing_anchor', { mode: 'string' })
    .notNull()
    .default(sql`current_date`),
  billingInterval: text('billing_interval', { enum: ['month', 'year'] })
    .notNull()
    .default('month'),
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
    timezoneId: integer('timezone_id')
      .notNull()
      .default(1)
      .references(() => timeZones.id),
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

/**
 * `api_key` and `oauth_access_token` authenticate API requests (`Authorization`); `signin` is
 * the OAuth authorize page's sign-in cookie, good for that page only.
 */
export const CREDENTIAL_KINDS = ['api_key', 'oauth_access_token', 'signin'] as const;

/** What an OAuth token may do: `desk` all its teammate may, `desk:read` only read (GET and HEAD). */
export const OAUTH_SCOPES = ['desk', 'desk:read'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** RFC 6749's client types: a confidential app keeps a secret, a public one (native, in-browser) cannot. */
export const OAUTH_CLIENT_TYPES = ['confidential', 'public'] as const;

/**
 * Applications registered for the OAuth 2.0 login (`/v2/oauthapps.json`, src/resources/oauthapps):
 * a confidential one has a client secret (its SHA-256 digest here), a public one (a native or
 * browser app) none; every one must use PKCE.
 */
export const oauthApps = pgTable(
  'oauth_apps',
  {
    ...auditColumns(),
    name: text('name').notNull(),
    clientId: text('client_id').notNull(),
    clientType: text('client_type', { enum: OAUTH_CLIENT_TYPES }).notNull(),
    secretHash: text('secret_hash'),
    secretPrefix: text('secret_prefix'),
    redirectUris: text('redirect_uris').array().notNull(),
    /** the scopes it may ask for */
    scopes: text('scopes')
      .array()
      .notNull()
      .default(sql`'{desk}'::text[]`),
  },
  (t) => [uniqueIndex('oauth_apps_client_id_key').on(t.clientId)],
);

/**
 * One teammate's consent to one app (`/v2/oauthgrants.json`): the codes, access tokens and
 * refresh tokens issued under it. Revoked, it is deleted (`state`: by its teammate or an admin, a
 * refresh token or code used twice, the app's revocation of its refresh token, the app deleted),
 * and every token of it stops.
 */
export const oauthGrants = pgTable(
  'oauth_grants',
  {
    ...globalAuditColumns(),
    installationId: integer('installation_id')
      .notNull()
      .references(() => installations.id),
    appId: integer('app_id')
      .notNull()
      .references(() => oauthApps.id),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    scopes: text('scopes').array().notNull(),
  },
  (t) => [index('oauth_grants_app_idx').on(t.appId), index('oauth_grants_user_idx').on(t.userId)],
);

/** Authorization codes (their digests): each works once, within its life, for its app and redirect URI. */
export const oauthCodes = pgTable('oauth_codes', {
  codeHash: text('code_hash').primaryKey(),
  grantId: integer('grant_id')
    .notNull()
    .references(() => oauthGrants.id),
  /** where the code was sent */
  redirectUri: text('redirect_uri').notNull(),
  /** the authorize request named it (the token request must then name it too, RFC 6749 4.1.3); false when the app's only URI was taken */
  redirectUriSent: boolean('redirect_uri_sent').notNull(),
  /** PKCE's S256 challenge: required of every app; null only in codes issued before it was, which the token endpoint refuses */
  codeChallenge: text('code_challenge'),
  expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true, precision: 3 }),
});

/** Refresh tokens (their digests): each works once; the one that replaced it is issued with the new access token. */
export const oauthRefreshTokens = pgTable(
  'oauth_refresh_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    grantId: integer('grant_id')
      .notNull()
      .references(() => oauthGrants.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [index('oauth_refresh_tokens_grant_idx').on(t.grantId)],
);

/**
 * API keys and OAuth access tokens; a revoked one is deleted (`state`). Only a SHA-256 digest of the secret is stored: the secrets
 * are 190+ bits of randomness, so a slow password hash would add latency to every request and
 * no protection. `prefix` lets an owner recognise a key without revealing it.
 */
export const credentials = pgTable(
  'credentials',
  {
    ...globalAuditColumns(),
    installationId: integer('installation_id')
      .notNull()
      .references(() => installations.id),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    kind: text('kind', { enum: CREDENTIAL_KINDS }).notNull(),
    name: text('name').notNull().default(''),
    prefix: text('prefix').notNull(),
    secretHash: text('secret_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }),
    /** when it last authenticated a request, to about a minute (authenticate.ts) */
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, precision: 3 }),
    /** an OAuth access token's grant: it works while the grant stands */
    grantId: integer('grant_id').references(() => oauthGrants.id),
    /** a sign-in cookie's API key: it works while the key does (revoking a leaked key ends what it signed in) */
    parentId: integer('parent_id').references((): AnyPgColumn => credentials.id),
  },
  (t) => [
    uniqueIndex('credentials_secret_hash_key').on(t.secretHash),
    index('credentials_user_idx').on(t.userId),
    index('credentials_grant_idx').on(t.grantId),
  ],
);
