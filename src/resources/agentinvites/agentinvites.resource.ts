import { and, eq, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { EVERYONE } from '../../auth/access';
import type { Actor } from '../../auth/principal';
import { refuseWhen } from '../../db/refusal';
import type { Transaction } from '../../db/client';
import { AGENT_INVITE_STATUSES, agentInvites, users } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { referenceField } from '../../engine';
import { AUDIT_SET, defineResource, type WriteContext } from '../../engine';
import { includedUsers } from '../users/user-shape';

const userRef = { table: users, type: 'users' };

/** The installation's owner, to whom requests for a seat go: the live owner with the lowest id (SQL, null when there is none). */
function installationOwner(installationId: number): SQL {
  return sql`(SELECT ${users.id} FROM ${users} WHERE ${and(eq(users.installationId, installationId), eq(users.role, 'owner'), eq(users.state, 'active'))} ORDER BY ${users.id} LIMIT 1)`;
}

const NO_OWNER = 'this installation has no owner to send the request to';

async function ownerOf(tx: Transaction, installationId: number): Promise<number> {
  const { rows } = await tx.execute(sql`SELECT ${installationOwner(installationId)} AS id`);
  if (rows[0]?.id == null) throw ApiError.conflict('agentinvite.owner', NO_OWNER);
  return Number(rows[0].id);
}

/** Only a teammate asks, and of teammates, only a collaborator: the rule that needs no database. */
function requireTeammate(who: Actor): void {
  if (who.kind !== 'teammate') throw ApiError.forbidden('only a teammate asks for a seat');
}

/** The caller's role as the database has it (the credential's where there is no row). */
const storedRole = (who: Actor) =>
  sql`coalesce((SELECT ${users.role} FROM ${users} WHERE ${users.id} = ${who.userId}), ${who.kind === 'teammate' ? who.role : null}::text)`;

/**
 * Only a collaborator asks for a seat. The role is read from the database, not from the
 * credential (remembered for up to 30 s), so a request just accepted cannot be followed by another.
 */
async function requireCollaborator({ tx, who }: WriteContext): Promise<void> {
  requireTeammate(who);
  const { rows } = await tx.execute(sql`SELECT ${storedRole(who)} AS role`);
  const role = String(rows[0]!.role);
  if (role !== 'collaborator')
    throw ApiError.conflict(
      'agentinvite.user',
      `user ${who.userId} already has a seat (role ${role}); only a collaborator asks for one`,
    );
}

/** `requireCollaborator` and the owner `onCreate` names, as checks of a create's batch, in the same order. */
function newRequestChecks(who: Actor): SQL[] {
  return [
    sql`SELECT desk_refuse(409, 'agentinvite.user', ${`user ${who.userId} already has a seat (role `}::text || r.role || '); only a collaborator asks for one')
      FROM (SELECT ${storedRole(who)} AS role) r WHERE r.role <> 'collaborator'`,
    refuseWhen(sql`${installationOwner(who.installationId)} IS NULL`, 409, 'agentinvite.owner', NO_OWNER),
  ];
}

/**
 * A collaborator's request for a seat, addressed to the site owner. The requester sees the
 * requests they made and the owner those addressed to them; nobody else sees any.
 */
export const agentInvitesResource = defineResource({
  type: 'agentinvites',
  singular: 'agentinvite',
  title: { one: 'AgentInvite', many: 'AgentInvites' },
  table: agentInvites,
  fields: {
    // the server sets all but `message`
    user: referenceField(agentInvites.userId, userRef, { readOnly: true }),
    owner: referenceField(agentInvites.ownerId, userRef, { readOnly: true }),
    status: { column: agentInvites.status, schema: z.enum(AGENT_INVITE_STATUSES), readOnly: true },
    message: { column: agentInvites.message, schema: z.string().trim().max(2000).nullable() },
    decidedAt: { column: agentInvites.decidedAt, schema: z.iso.datetime().nullable(), readOnly: true },
    decidedBy: referenceField(agentInvites.decidedBy, userRef, { readOnly: true }),
  },
  filter: [...AUDIT_SET, 'user'],
  relations: {
    users: includedUsers(() => [agentInvites.userId, agentInvites.ownerId, agentInvites.decidedBy]),
  },
  constraints: {
    agent_invites_one_pending_key: {
      source: 'agentinvite.user',
      detail: 'you already have a pending request for a seat',
    },
  },
  // Anyone may call; `requireCollaborator` turns away those who already have a seat.
  access: { read: EVERYONE, write: EVERYONE },
  examples: {
    create: { message: 'I answer the billing questions on Fridays: may I have an agent seat?' },
  },
  operations: ['list', 'get', 'create'],
  scope: (who) =>
    who.userId === null ? sql`false` : or(eq(agentInvites.userId, who.userId), eq(agentInvites.ownerId, who.userId)),
  beforeWrite: (context) => requireCollaborator(context),
  onCreate: async ({ tx, who }) => ({
    userId: who.userId!,
    ownerId: await ownerOf(tx, who.installationId),
    status: 'pending',
  }),
  planned: {
    before: (who) => {
      requireTeammate(who);
      return true;
    },
    first: (_db, who) => newRequestChecks(who),
    onCreate: (who) => ({ userId: who.userId!, ownerId: installationOwner(who.installationId), status: 'pending' }),
  },
});
