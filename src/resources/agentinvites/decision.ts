import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Principal } from '../../auth/principal';
import { refuseWhen } from '../../db/refusal';
import { agentInvites, users } from '../../db/schema';
import { recordScope, schemasOf, sendWithReadBack, updatedValues, updateStatement, type Writer } from '../../engine';
import { withEvents } from '../../events/record-events';
import { idParams } from '../../http/params';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { agentInvitesResource } from './agentinvites.resource';

export type Outcome = 'accepted' | 'declined';

const requester = (id: number) =>
  sql`(SELECT ${agentInvites.userId} FROM ${agentInvites} WHERE ${agentInvites.id} = ${id})`;

/**
 * Gives the requester a seat: a collaborator becomes an agent (an `updated` event of the user); a
 * teammate who has one keeps their role. The requester locked first; gone, a 409.
 */
function grantSeatStatements(db: Writer, who: Principal, id: number): SQL[] {
  const teammate = and(
    eq(users.id, requester(id)),
    eq(users.installationId, who.installationId),
    eq(users.state, 'active'),
  )!;
  return [
    sql`WITH locked AS (SELECT ${users.id} FROM ${users} WHERE ${teammate} FOR UPDATE)
      SELECT desk_refuse(409, 'agentinvite.user', 'user ' || ${requester(id)} || ' is no longer a teammate here; decline the request instead')
       WHERE NOT EXISTS (SELECT 1 FROM locked)`,
    updateStatement(
      db,
      who,
      { table: users, type: 'users', where: and(teammate, eq(users.role, 'collaborator'))! },
      { role: 'agent' },
      { role: users.role },
    ),
  ];
}

/**
 * Accepts or declines a pending request, in one batch (one round trip): only the owner it is
 * addressed to decides, once. The invite's row is locked first, so two decisions at once cannot
 * both pass.
 */
export function decisionRoute(outcome: Outcome) {
  const action = outcome === 'accepted' ? 'accept' : 'decline';
  const s = schemasOf(agentInvitesResource);
  return defineRoute(
    {
      method: 'post',
      path: `/v2/agentinvites/{id}/${action}.json`,
      tag: 'AgentInvites',
      operationId: `${action}AgentInvite`,
      roles: ['owner'],
      summary:
        outcome === 'accepted'
          ? 'Accept a request for a seat (the owner it is addressed to): a collaborator becomes an agent'
          : 'Decline a request for a seat (the owner it is addressed to); the requester may ask again',
      description:
        outcome === 'accepted'
          ? 'Accepts a pending request for a seat and gives the requester one: a collaborator becomes an agent (an `updated` event of the user), and a teammate promoted meanwhile keeps their role. Only the owner the request is addressed to decides it: any other role is a 403, and an invite not addressed to the caller (or of another installation) is a 404. An invite already decided, or whose requester is no longer a live teammate, is a 409; the invite is locked while deciding, so of two decisions at once one wins. Records an `accepted` event of the invite. See docs/resources/agentinvites.md.'
          : 'Declines a pending request for a seat: sets `status: declined`, `decidedAt` and `decidedBy`, records a `declined` event and changes nothing else; the requester may ask again. Only the owner the request is addressed to decides it: any other role is a 403, and an invite not addressed to the caller (or of another installation) is a 404. An invite already decided is a 409; the invite is locked while deciding, so of two decisions at once one wins. See docs/resources/agentinvites.md.',
      request: { params: idParams, query: s.writeQuery },
      // two requests: the first declined, then the one asked again accepted
      example: { params: { id: outcome === 'accepted' ? 2 : 1 } },
      responses: {
        200: jsonResponse('the decided invite', s.one),
        409: errorResponse('already decided, or the requester is gone'),
      },
    },
    async (c) => {
      const who = c.var.principal;
      const { id } = c.req.valid('param');
      const { includes } = c.req.valid('query');
      const invite = and(recordScope(agentInvitesResource, who), eq(agentInvites.id, id))!;
      const db = c.var.db.http;
      // one exchange: the invite locked and checked, the seat, the decision with its event, the read-back
      const statements = [
        sql`WITH locked AS (SELECT ${agentInvites.id} FROM ${agentInvites} WHERE ${invite} FOR UPDATE)
        SELECT desk_refuse(404, 'id', ${`agentinvite ${id} not found`}::text) WHERE NOT EXISTS (SELECT 1 FROM locked)`,
        refuseWhen(
          sql`EXISTS (SELECT 1 FROM ${agentInvites} WHERE ${agentInvites.id} = ${id} AND ${agentInvites.ownerId} IS DISTINCT FROM ${who.userId})`,
          403,
          '',
          'only the owner the request is addressed to may decide it',
        ),
        sql`SELECT desk_refuse(409, 'agentinvite.status', ${`agentinvite ${id} is already `}::text || ${agentInvites.status})
        FROM ${agentInvites} WHERE ${agentInvites.id} = ${id} AND ${agentInvites.status} <> 'pending'`,
        ...(outcome === 'accepted' ? grantSeatStatements(db, who, id) : []),
        withEvents(
          db
            .update(agentInvites)
            .set({ status: outcome, decidedAt: sql`now()`, decidedBy: who.userId, ...updatedValues(who) })
            .where(eq(agentInvites.id, id))
            .returning({ id: agentInvites.id, userId: agentInvites.userId })
            .getSQL(),
          who,
          'agentinvites',
          outcome,
          sql`jsonb_build_object('user', jsonb_build_object('id', r.user_id, 'type', 'users'))`,
        ),
      ];
      const body = await sendWithReadBack(c.var.db, agentInvitesResource, who, statements, sql`${id}::int`, includes);
      if (!body) throw new Error(`agentinvite ${id} is not there to read back`);
      return c.json(body, 200);
    },
  );
}
