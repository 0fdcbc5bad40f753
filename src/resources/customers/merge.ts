import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Actor } from '../../auth/principal';
import type { Transaction } from '../../db/client';
import { z } from 'zod';
import { AGENTS } from '../../auth/access';
import { customers } from '../../db/schema';
import { deleteRecords, readBack, recordScope, referenceInput, schemasOf, translateDbError } from '../../engine';
import { insertEventsFrom, recordEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { bodyObject } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { refreshSearch } from '../tickets/ticket-search';
import { CONTACT_EVENTS, settleContacts } from './customer-contacts';
import { customersResource } from './customers.resource';

const mergeBody = bodyObject({ customer: referenceInput('customers').meta({ description: 'the customer folded into this one, and deleted' }) }).meta({ id: 'CustomerMerge' });

/** An `updated` event's data: the `customer` reference before and after. */
const customerChange = (from: number, to: number) =>
  sql`jsonb_build_object('customer', jsonb_build_object('before', jsonb_build_object('id', ${from}::int, 'type', 'customers'), 'after', jsonb_build_object('id', ${to}::int, 'type', 'customers')))`;

/**
 * The rows of `table` in the caller's installation that name customer `from` (only live ones
 * with `liveOnly`) name `to` now, each with an `updated` event of `eventType` saying so.
 * Answers their ids.
 */
async function moveToCustomer(tx: Transaction, who: Actor, target: { table: string; eventType: string; liveOnly: boolean }, from: number, to: number): Promise<number[]> {
  const { rows } = await tx.execute(sql`
    WITH changed AS (
      UPDATE ${sql.identifier(target.table)} SET customer_id = ${to}, updated_at = now(), updated_by = ${who.userId}::int
       WHERE customer_id = ${from} AND installation_id = ${who.installationId} ${target.liveOnly ? sql`AND state = 'active'` : sql``}
      RETURNING id),
    logged AS (${insertEventsFrom(sql`changed`, who, target.eventType, 'updated', customerChange(from, to))})
    SELECT id FROM changed`);
  return rows.map((row) => Number(row.id));
}

/**
 * `POST /v2/customers/{id}/merge.json` with `{"customer": {"id": 12}}`: customer 12 is folded into
 * this one, in one transaction. Its contacts move (keeping this customer's main ones; each an
 * `updated` contact event), its company links move (each a `linked` event of this customer), its
 * chat visitors name this customer (each an `updated` event), it is deleted (its `deleted` event
 * says `mergedInto`), and this customer gets a `merged` event naming it. Its tickets and the
 * thread entries it wrote move too (each an `updated` event; the tickets' search documents name
 * this customer from then on). This customer's own properties stay as they are.
 */
export const mergeRoute = defineRoute({
  method: 'post', path: '/v2/customers/{id}/merge.json', tag: 'Customers', operationId: 'mergeCustomer', roles: AGENTS,
  summary: 'Fold another customer into this one: contacts, company links, conversations and tickets move, the other is deleted',
  request: { params: idParams, body: { required: true, content: { 'application/json': { schema: mergeBody } } } },
  responses: {
    200: jsonResponse('the customer, with its contacts and companies', schemasOf(customersResource).one),
    409: errorResponse('another write took one of the moved contact values at the same moment; try again'),
  },
}, async (c) => {
  const who = c.var.principal;
  const { id } = c.req.valid('param');
  const other = c.req.valid('json').customer;
  if (other === id) throw ApiError.invalid('customer.id', 'a customer cannot be merged into itself');
  const body = await c.var.db.transaction(async (tx) => {
    const live = await tx
      .select({ id: customers.id })
      .from(customers)
      .where(and(recordScope(customersResource, who, false, 'write'), inArray(customers.id, [id, other])))
      .orderBy(customers.id)
      .for('update');
    if (!live.some((row) => row.id === id)) throw ApiError.notFound('id', `customer ${id} not found`);
    if (!live.some((row) => row.id === other)) throw ApiError.invalid('customer.id', `no customer ${other} here`);
    // The other's main contacts stay main only for types this customer has no main contact of;
    // an event says so when one loses the mark.
    await tx.execute(sql`
      WITH mains AS (SELECT type FROM customer_contacts WHERE customer_id = ${id} AND is_main AND state = 'active'),
      before AS (SELECT id, is_main FROM customer_contacts WHERE customer_id = ${other} AND state = 'active' FOR UPDATE),
      changed AS (
        UPDATE customer_contacts c SET customer_id = ${id}, is_main = c.is_main AND c.type NOT IN (SELECT type FROM mains),
               updated_at = now(), updated_by = ${who.userId}::int
          FROM before WHERE c.id = before.id
        RETURNING c.id, before.is_main AS was_main, c.is_main)
      ${insertEventsFrom(sql`changed`, who, CONTACT_EVENTS, 'updated', sql`${customerChange(other, id)} || CASE WHEN r.was_main <> r.is_main THEN jsonb_build_object('isMain', jsonb_build_object('before', r.was_main, 'after', r.is_main)) ELSE '{}'::jsonb END`)}`);
    await tx.execute(sql`
      WITH gone AS (DELETE FROM company_customers WHERE customer_id = ${other} RETURNING company_id),
      linked AS (
        INSERT INTO company_customers (installation_id, company_id, customer_id, created_by)
        SELECT ${who.installationId}::int, company_id, ${id}::int, ${who.userId}::int FROM gone
        ON CONFLICT DO NOTHING
        RETURNING customer_id AS id, company_id)
      ${insertEventsFrom(sql`linked`, who, 'customers', 'linked', sql`jsonb_build_object('relation', 'companies', 'record', jsonb_build_object('id', r.company_id, 'type', 'companies'), 'mergedFrom', ${other}::int)`)}`);
    // Chat visitors (live ones), tickets (deleted ones too, so that a restore names a live
    // customer) and the entries the other wrote name this customer.
    const move = (table: string, eventType: string, liveOnly: boolean) => moveToCustomer(tx, who, { table, eventType, liveOnly }, other, id);
    await move('contacts', 'contacts', true);
    const movedTickets = await move('tickets', 'tickets', false);
    await move('ticket_messages', 'messages', false);
    await refreshSearch({ tx }, movedTickets);
    await deleteRecords(tx, who, { table: customers, type: 'customers', where: eq(customers.id, other) }, { mergedInto: { id, type: 'customers' } });
    await recordEvents(tx, who, [{ recordType: 'customers', recordId: id, kind: 'merged', data: { customer: { id: other, type: 'customers' } } }]);
    await settleContacts({ tx, who, env: c.env }, id);
    return readBack(tx, customersResource, who, id, ['companies', 'contacts']);
  }).catch((error: unknown) => {
    throw translateDbError(error, customersResource);
  });
  return c.json(body, 200);
});
