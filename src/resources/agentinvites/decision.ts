import { and, eq, sql } from 'drizzle-orm';
import type { Principal } from '../../auth/principal';
import type { Transaction } from '../../db/client';
import { agentInvites, users } from '../../db/schema';
import { readBack, recordScope, schemasOf, updateRecords, updatedValues } from '../../engine';
import { noteEvents, recordEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { agentInvitesResource } from './agentinvites.resource';

export type Outcome = 'accepted' | 'declined';

/** Gives the requester a seat: a collaborator becomes an agent (an `updated` event of the user); a teammate who has one keeps their role. */
async function grantSeat(tx: Transaction, who: Principal, userId: number): Promise<void> {
  const [user] = await tx
    .select({ role: users.role })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.installationId, who.installationId), eq(users.state, 'active')))
    .for('update');
  if (!user) throw ApiError.conflict('agentinvite.user', `user ${userId} is no longer a teammate here; decline the request instead`);
  if (user.role === 'collaborator') {
    await updateRecords(tx, who, { table: users, type: 'users', where: eq(users.id, userId) }, { role: 'agent' }, { role: users.role });
  }
}

/**
 * Accepts or declines a pending request, in one transaction: only the owner it is addressed
 * to decides, once. The invite's row is locked first, so two decisions at once cannot both pass.
 */
export function decisionRoute(outcome: Outcome) {
  const action = outcome === 'accepted' ? 'accept' : 'decline';
  const s = schemasOf(agentInvitesResource);
  return defineRoute({
    method: 'post', path: `/v2/agentinvites/{id}/${action}.json`, tag: 'AgentInvites', operationId: `${action}AgentInvite`, roles: ['owner'],
    summary: outcome === 'accepted'
      ? 'Accept a request for a seat (the owner it is addressed to): a collaborator becomes an agent'
      : 'Decline a request for a seat (the owner it is addressed to); the requester may ask again',
    request: { params: idParams, query: s.writeQuery },
    responses: { 200: jsonResponse('the decided invite', s.one), 409: errorResponse('already decided, or the requester is gone') },
  }, async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    const { includes } = c.req.valid('query');
    const body = await c.var.db.transaction(async (tx) => {
      const [invite] = await tx
        .select({ userId: agentInvites.userId, ownerId: agentInvites.ownerId, status: agentInvites.status })
        .from(agentInvites)
        .where(and(recordScope(agentInvitesResource, who), eq(agentInvites.id, id)))
        .for('update');
      if (!invite) throw ApiError.notFound('id', `agentinvite ${id} not found`);
      if (invite.ownerId !== who.userId) throw ApiError.forbidden('only the owner the request is addressed to may decide it');
      if (invite.status !== 'pending') throw ApiError.conflict('agentinvite.status', `agentinvite ${id} is already ${invite.status}`);
      if (outcome === 'accepted') await grantSeat(tx, who, invite.userId);
      await tx
        .update(agentInvites)
        .set({ status: outcome, decidedAt: sql`now()`, decidedBy: who.userId, ...updatedValues(who) })
        .where(eq(agentInvites.id, id));
      await recordEvents(tx, who, [{ recordType: 'agentinvites', recordId: id, kind: outcome, data: { user: { id: invite.userId, type: 'users' } } }]);
      return readBack(tx, agentInvitesResource, who, id, includes);
    });
    noteEvents(c.var.db, who.installationId, [['agentinvites'], ['users', 'updated']]);
    return c.json(body, 200);
  });
}
