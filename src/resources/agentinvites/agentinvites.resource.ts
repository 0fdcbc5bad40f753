import { and, asc, eq, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import { EVERYONE } from '../../auth/access';
import type { Transaction } from '../../db/client';
import { AGENT_INVITE_STATUSES, agentInvites, users } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { referenceField } from '../../engine';
import { AUDIT_SET, defineResource, type WriteContext } from '../../engine';
import { includedUsers } from '../users/user-shape';

const userRef = { table: users, type: 'users' };

/** The installation's owner, to whom requests for a seat go: the live owner with the lowest id. */
async function installationOwner(tx: Transaction, installationId: number): Promise<number> {
  const [owner] = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.installationId, installationId), eq(users.role, 'owner'), eq(users.state, 'active')))
    .orderBy(asc(users.id))
    .limit(1);
  if (!owner) throw ApiError.conflict('agentinvite.owner', 'this installation has no owner to send the request to');
  return owner.id;
}

/**
 * Only a collaborator asks for a seat. The role is read from the database, not from the
 * credential (remembered for up to 30 s), so a request just accepted cannot be followed by another.
 */
async function requireCollaborator({ tx, who }: WriteContext): Promise<void> {
  if (who.kind !== 'teammate') throw ApiError.forbidden('only a teammate asks for a seat');
  const [caller] = await tx.select({ role: users.role }).from(users).where(eq(users.id, who.userId));
  const role = caller?.role ?? who.role;
  if (role !== 'collaborator') {
    throw ApiError.conflict('agentinvite.user', `user ${who.userId} already has a seat (role ${role}); only a collaborator asks for one`);
  }
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
    agent_invites_one_pending_key: { source: 'agentinvite.user', detail: 'you already have a pending request for a seat' },
  },
  // Anyone may call; `requireCollaborator` turns away those who already have a seat.
  access: { read: EVERYONE, write: EVERYONE },
  operations: ['list', 'get', 'create'],
  scope: (who) => (who.userId === null ? sql`false` : or(eq(agentInvites.userId, who.userId), eq(agentInvites.ownerId, who.userId))),
  beforeWrite: (context) => requireCollaborator(context),
  onCreate: async ({ tx, who }) => ({
    userId: who.userId!,
    ownerId: await installationOwner(tx, who.installationId),
    status: 'pending',
  }),
});
