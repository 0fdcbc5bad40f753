import { and, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import { AGENTS } from '../../auth/access';
import { customers } from '../../db/schema';
import { deleteRecords, readBack, recordScope, referenceInput, schemasOf, translateDbError } from '../../engine';
import { insertEventsFrom, noteEvents, recordEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { refreshSearch } from '../tickets/ticket-search';
import { CONTACT_EVENTS, settleContacts } from './customer-contacts';
import { customersResource } from './customers.resource';

const mergeBody = z
  .strictObject({ customer: referenceInput('customers').meta({ description: 'the customer folded into this one, and deleted' }) })
  .meta({ id: 'CustomerMerge' });

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
    const customerMoved = sql`jsonb_build_object('customer', jsonb_build_object('before', jsonb_build_object('id', ${other}::int, 'type', 'customers'), 'after', jsonb_build_object('id', ${id}::int, 'type', 'customers')))`;
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
      ${insertEventsFrom(sql`changed`, who, CONTACT_EVENTS, 'updated', sql`${customerMoved} || CASE WHEN r.was_main <> r.is_main THEN jsonb_build_object('isMain', jsonb_build_object('before', r.was_main, 'after', r.is_main)) ELSE '{}'::jsonb END`)}`);
    await tx.execute(sql`
      WITH gone AS (DELETE FROM company_customers WHERE customer_id = ${other} RETURNING company_id),
      linked AS (
        INSERT INTO company_customers (installation_id, company_id, customer_id, created_by)
        SELECT ${who.installationId}::int, company_id, ${id}::int, ${who.userId}::int FROM gone
        ON CONFLICT DO NOTHING
        RETURNING customer_id AS id, company_id)
      ${insertEventsFrom(sql`linked`, who, 'customers', 'linked', sql`jsonb_build_object('relation', 'companies', 'record', jsonb_build_object('id', r.company_id, 'type', 'companies'), 'mergedFrom', ${other}::int)`)}`);
    await tx.execute(sql`
      WITH changed AS (
        UPDATE contacts SET customer_id = ${id}, updated_at = now(), updated_by = ${who.userId}::int
         WHERE customer_id = ${other} AND installation_id = ${who.installationId} AND state = 'active'
        RETURNING id)
      ${insertEventsFrom(sql`changed`, who, 'contacts', 'updated', customerMoved)}`);
    // Their tickets (deleted ones too, so that a restore names a live customer) and the entries
    // they wrote: each an `updated` event with the customer before and after.
    const { rows: movedTickets } = await tx.execute(sql`
      WITH changed AS (
        UPDATE tickets SET customer_id = ${id}, updated_at = now(), updated_by = ${who.userId}::int
         WHERE customer_id = ${other} AND installation_id = ${who.installationId}
        RETURNING id),
      logged AS (${insertEventsFrom(sql`changed`, who, 'tickets', 'updated', customerMoved)})
      SELECT id FROM changed`);
    await tx.execute(sql`
      WITH changed AS (
        UPDATE ticket_messages SET customer_id = ${id}, updated_at = now(), updated_by = ${who.userId}::int
         WHERE customer_id = ${other} AND installation_id = ${who.installationId}
        RETURNING id)
      ${insertEventsFrom(sql`changed`, who, 'messages', 'updated', customerMoved)}`);
    await refreshSearch({ tx }, movedTickets.map((row) => Number(row.id)));
    await deleteRecords(tx, who, { table: customers, type: 'customers', where: eq(customers.id, other) }, { mergedInto: { id, type: 'customers' } });
    await recordEvents(tx, who, [{ recordType: 'customers', recordId: id, kind: 'merged', data: { customer: { id: other, type: 'customers' } } }]);
    await settleContacts({ tx, who, env: c.env }, id);
    return readBack(tx, customersResource, who, id, ['companies', 'contacts']);
  }).catch((error: unknown) => {
    throw translateDbError(error, customersResource);
  });
  noteEvents(c.var.db, who.installationId, [['customers'], [CONTACT_EVENTS, 'updated'], ['contacts', 'updated'], ['tickets', 'updated'], ['messages', 'updated']]);
  return c.json(body, 200);
});
