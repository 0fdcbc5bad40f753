import { and, eq, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app-env';
import { requireRole } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import type { Queryable, Transaction } from '../../db/client';
import { agentInvites, users } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { pathParam } from '../../http/route';
import type { ResponseDoc } from '../../openapi/registry';
import { errorBodySchema } from '../../openapi/schemas';
import { updatedValues } from '../engine/columns';
import { compiled } from '../engine/compiled';
import { parseIncludes } from '../engine/list-params';
import { selectOne } from '../engine/queries';
import { oneRecordBody } from '../engine/read';
import { recordScope } from '../engine/scope';
import { agentInvitesResource } from './agentinvites.resource';

export type Outcome = 'accepted' | 'declined';

/** Gives the requester a seat: a collaborator becomes an agent; a teammate who has one keeps their role. */
async function grantSeat(tx: Transaction, who: Principal, userId: number): Promise<void> {
  const [user] = await tx
    .select({ role: users.role })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.installationId, who.installationId), eq(users.state, 'active')))
    .for('update');
  if (!user) throw ApiError.conflict('agentinvite.user', `user ${userId} is no longer a teammate here; decline the request instead`);
  if (user.role === 'collaborator') {
    await tx.update(users).set({ role: 'agent', ...updatedValues(who) }).where(eq(users.id, userId));
  }
}

/**
 * Accepts or declines a pending request, in one transaction: only the owner it is addressed
 * to decides, once. The invite's row is locked first, so two decisions at once cannot both pass.
 */
export function decisionHandler(outcome: Outcome) {
  return async (c: Context<AppEnv>) => {
    const who = c.var.principal;
    requireRole(who, ['owner']);
    const id = pathParam(c, 'id');
    const includes = parseIncludes(c.req.query('includes'), compiled(agentInvitesResource).includeNames);
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
      const result = await selectOne(tx as unknown as Queryable, agentInvitesResource, id, { who, includes });
      return oneRecordBody(agentInvitesResource, result!);
    });
    return c.json(body);
  };
}

const one = z.object({ agentinvite: compiled(agentInvitesResource).schemas.record, included: z.record(z.string(), z.array(z.unknown())) });
const errors = (...statuses: number[]): Record<number, ResponseDoc> =>
  Object.fromEntries(statuses.map((status) => [status, { description: 'error', schema: errorBodySchema }]));

/** What the OpenAPI document says of both decisions. */
export const decisionDoc = {
  tag: 'agentinvites',
  query: [{ name: 'includes', description: 'comma list of: users, all', schema: { type: 'string' } }],
  responses: { 200: { description: 'the decided invite', schema: one }, ...errors(400, 401, 403, 404, 409) },
};
