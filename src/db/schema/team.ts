import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';
import { users } from './identity';

export const AGENT_INVITE_STATUSES = ['pending', 'accepted', 'declined'] as const;

/** A collaborator's request for a seat, addressed to the site owner. */
export const agentInvites = pgTable(
  'agent_invites',
  {
    ...auditColumns(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    ownerId: integer('owner_id')
      .notNull()
      .references(() => users.id),
    status: text('status', { enum: AGENT_INVITE_STATUSES }).notNull().default('pending'),
    message: text('message'),
    decidedAt: timestamp('decided_at', { withTimezone: true, precision: 3 }),
    decidedBy: integer('decided_by'),
  },
  (t) => [
    index('agent_invites_user_idx').on(t.installationId, t.userId),
    index('agent_invites_owner_idx').on(t.installationId, t.ownerId),
    // one open request a user at a time
    uniqueIndex('agent_invites_one_pending_key')
      .on(t.installationId, t.userId)
      .where(sql`${t.status} = 'pending' AND ${t.state} = 'active'`),
  ],
);

/** Who sees an announcement: everyone, or only seated teammates, admins, or owners. */
export const ANNOUNCEMENT_AUDIENCES = ['everyone', 'agents', 'admins', 'owners'] as const;

export const announcements = pgTable(
  'announcements',
  {
    ...auditColumns(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    audience: text('audience', { enum: ANNOUNCEMENT_AUDIENCES }).notNull().default('everyone'),
    publishedAt: timestamp('published_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [index('announcements_published_idx').on(t.installationId, t.publishedAt)],
);
