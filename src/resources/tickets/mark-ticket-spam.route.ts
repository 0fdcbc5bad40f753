import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Actor } from '../../auth/principal';
import { withEvents } from '../../events/record-events';
import { z } from 'zod';
import { AGENTS } from '../../auth/access';
import { customers, spamLists, tickets } from '../../db/schema';
import { schemasOf, sendWithReadBack, translateDbError, updateStatement, type Writer } from '../../engine';
import { idParams } from '../../http/params';
import { bodyObject } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { requireStatusOfCode, statusIdOfCode } from './status-of-code';
import { lockTicketStatement } from './ticket-lock';
import { ticketsResource } from './tickets.resource';

const s = schemasOf(ticketsResource);

const spamBody = bodyObject({
  blacklist: z.boolean().optional().meta({
    description: "also put the customer's email address on the blacklist (no later mail from it makes a ticket)",
  }),
}).meta({ id: 'TicketSpam' });

/**
 * The ticket's customer's address on the blacklist: added, or moved there from the whitelist
 * (with its event); already there, nothing. Statements of the batch.
 */
function blacklistStatements(db: Writer, who: Actor, ticketId: number): SQL[] {
  const term = sql`(SELECT lower(trim(c.email)) FROM ${customers} c JOIN ${tickets} t ON t.customer_id = c.id WHERE t.id = ${ticketId})`;
  const listed = sql`(SELECT id FROM spam_lists WHERE installation_id = ${who.installationId} AND state = 'active' AND lower(term) = ${term} LIMIT 1)`;
  return [
    updateStatement(
      db,
      who,
      {
        table: spamLists,
        type: 'spamlists',
        where: and(sql`${spamLists.id} = ${listed}`, sql`${spamLists.listType} <> 'blacklist'`)!,
      },
      { listType: 'blacklist' },
      { type: spamLists.listType },
    ),
    withEvents(
      sql`INSERT INTO ${spamLists} (installation_id, term, list_type, created_by, updated_by)
      SELECT ${who.installationId}::int, ${term}, 'blacklist', ${who.userId}::int, ${who.userId}::int WHERE coalesce(${term}, '') <> '' AND ${listed} IS NULL RETURNING id`,
      who,
      'spamlists',
      'created',
    ),
  ];
}

/**
 * `POST /v2/tickets/{id}/spam.json`: the ticket marked spam (its status set to the spam status,
 * a `ticket.status` line of its history), and with `{"blacklist": true}` its customer's email
 * address onto the blacklist, in one batch (one round trip). Setting another status undoes the mark.
 */
export const markTicketSpamRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/tickets/{id}/spam.json',
    tag: 'Tickets',
    operationId: 'markTicketSpam',
    roles: AGENTS,
    summary: 'Mark a ticket as spam, optionally blacklisting its sender',
    description:
      "Sets the ticket's status to the spam status (the installation's own of code `spam`, else the platform's) with an `updated` event, and with `{\"blacklist\": true}` also puts the customer's email address on the blacklist (moved there from the whitelist if it was on it), in one batch; setting another status later undoes the mark, and the blacklist entry stays until deleted. A ticket the caller may not change is a 404, and an installation without a spam status a 409. See docs/resources/tickets.md.",
    request: { params: idParams, body: { required: true, content: { 'application/json': { schema: spamBody } } } },
    example: { params: { id: 3 }, body: { blacklist: true } },
    responses: { 200: jsonResponse('the ticket', s.one), 409: errorResponse('the installation has no spam status') },
  },
  async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    const { blacklist } = c.req.valid('json');
    // one batch: the ticket locked, the spam status there, the status set, the sender blacklisted, read back
    const body = await sendWithReadBack(
      c.var.db,
      ticketsResource,
      who,
      [
        lockTicketStatement(who, id),
        requireStatusOfCode(who, 'spam'),
        updateStatement(
          c.var.db.http,
          who,
          { table: tickets, type: 'tickets', where: eq(tickets.id, id) },
          { statusId: statusIdOfCode(who, 'spam') },
          { status: ticketsResource.fields.status!.output! },
        ),
        ...(blacklist ? blacklistStatements(c.var.db.http, who, id) : []),
      ],
      sql`${id}::int`,
      [],
    ).catch((error: unknown) => {
      throw translateDbError(error, ticketsResource);
    });
    return c.json(body!, 200);
  },
);
