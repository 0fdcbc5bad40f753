import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { AGENTS } from '../../auth/access';
import { customers, spamLists, tickets } from '../../db/schema';
import { createRecords, readBack, schemasOf, translateDbError, updateRecords, type WriteContext } from '../../engine';
import { noteEvents } from '../../events/record-events';
import { idParams } from '../../http/params';
import { bodyObject } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { statusOfCode } from './status-of-code';
import { lockTicket } from './ticket-lock';
import { ticketsResource } from './tickets.resource';

const s = schemasOf(ticketsResource);

const spamBody = bodyObject({
  blacklist: z.boolean().optional().meta({ description: "also put the customer's email address on the blacklist (no later mail from it makes a ticket)" }),
}).meta({ id: 'TicketSpam' });

/** The customer's address on the blacklist: added, or moved there from the whitelist; already there, nothing. */
async function blacklistCustomer(context: WriteContext, customerId: number): Promise<void> {
  const { tx, who } = context;
  const [customer] = await tx.select({ email: customers.email }).from(customers).where(eq(customers.id, customerId));
  const term = customer?.email.trim().toLowerCase();
  if (!term) return;
  const { rows } = await tx.execute(sql`SELECT id, list_type FROM spam_lists WHERE installation_id = ${who.installationId} AND state = 'active' AND lower(term) = ${term} FOR UPDATE`);
  const entry = rows[0];
  if (!entry) {
    await createRecords(tx, who, { table: spamLists, type: 'spamlists' }, [{ installationId: who.installationId, term, listType: 'blacklist' }]);
  } else if (entry.list_type !== 'blacklist') {
    await updateRecords(tx, who, { table: spamLists, type: 'spamlists', where: eq(spamLists.id, Number(entry.id)) }, { listType: 'blacklist' }, { type: spamLists.listType });
  }
}

/**
 * `POST /v2/tickets/{id}/spam.json`: the ticket marked spam (its status set to the spam status,
 * a `ticket.status` line of its history), and with `{"blacklist": true}` its customer's email
 * address onto the blacklist, in one transaction. Setting another status undoes the mark.
 */
export const markSpamRoute = defineRoute({
  method: 'post', path: '/v2/tickets/{id}/spam.json', tag: 'Tickets', operationId: 'markTicketSpam', roles: AGENTS,
  summary: 'Mark a ticket as spam, optionally blacklisting its sender',
  request: { params: idParams, body: { required: true, content: { 'application/json': { schema: spamBody } } } },
  responses: { 200: jsonResponse('the ticket', s.one), 409: errorResponse('the installation has no spam status') },
}, async (c) => {
  const who = c.var.principal;
  const { id } = c.req.valid('param');
  const { blacklist } = c.req.valid('json');
  const body = await c.var.db
    .transaction(async (tx) => {
      const context = { tx, who, env: c.env };
      const ticket = await lockTicket(tx, who, id);
      await updateRecords(tx, who, { table: tickets, type: 'tickets', where: eq(tickets.id, id) }, { statusId: await statusOfCode(context, 'spam') }, { status: ticketsResource.fields.status!.output! });
      if (blacklist) await blacklistCustomer(context, ticket.customerId);
      return readBack(tx, ticketsResource, who, id, []);
    })
    .catch((error: unknown) => {
      throw translateDbError(error, ticketsResource);
    });
  noteEvents(c.var.db, who.installationId, [['tickets', 'updated', ['status']], ['spamlists']]);
  return c.json(body, 200);
});
