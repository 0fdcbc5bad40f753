import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Actor } from '../../auth/principal';
import { AGENTS } from '../../auth/access';
import { customers } from '../../db/schema';
import {
  deleteStatement,
  recordScope,
  referenceInput,
  schemasOf,
  sendWithReadBack,
  translateDbError,
} from '../../engine';
import { recalledIds, remember } from '../../db/refusal';
import { insertEventsFrom, recordEventsStatement } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { bodyObject } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { refreshSearchStatement } from '../tickets/ticket-search';
import { CONTACT_EVENTS, settleContactsStatements } from './customer-contacts';
import { customersResource } from './customers.resource';

const mergeBody = bodyObject({
  customer: referenceInput('customers').meta({ description: 'the customer folded into this one, and deleted' }),
}).meta({ id: 'CustomerMerge' });

/** An `updated` event's data: the `customer` reference before and after. */
const customerChange = (from: number, to: number) =>
  sql`jsonb_build_object('customer', jsonb_build_object('before', jsonb_build_object('id', ${from}::int, 'type', 'customers'), 'after', jsonb_build_object('id', ${to}::int, 'type', 'customers')))`;

/** The name the moved tickets' ids go by in the batch (a JSON array): their search documents are written again. */
const MOVED_TICKETS = 'merge_moved_tickets';

/**
 * The rows of `table` in the caller's installation that name customer `from` (only live ones
 * with `liveOnly`) name `to` now, each with an `updated` event of `eventType` saying so; with
 * `remembered`, their ids are kept under that name for the statements after it.
 */
function moveToCustomer(
  who: Actor,
  target: { table: string; eventType: string; liveOnly: boolean },
  from: number,
  to: number,
  remembered?: string,
): SQL {
  return sql`
    WITH changed AS (
      UPDATE ${sql.identifier(target.table)} SET customer_id = ${to}, updated_at = now(), updated_by = ${who.userId}::int
       WHERE customer_id = ${from} AND installation_id = ${who.installationId} ${target.liveOnly ? sql`AND state = 'active'` : sql``}
      RETURNING id),
    logged AS (${insertEventsFrom(sql`changed`, who, target.eventType, 'updated', customerChange(from, to))})
    SELECT ${remembered ? remember(remembered, sql`(SELECT coalesce(jsonb_agg(id), '[]'::jsonb) FROM changed)`) : sql`count(*) FROM changed`}`;
}

/**
 * `POST /v2/customers/{id}/merge.json` with `{"customer": {"id": 12}}`: customer 12 is folded into
 * this one, in one batch (one exchange with the database). Its contacts move (keeping this customer's main ones; each an
 * `updated` contact event), its company links move (each a `linked` event of this customer), its
 * chat visitors name this customer (each an `updated` event), it is deleted (its `deleted` event
 * says `mergedInto`), and this customer gets a `merged` event naming it. Its tickets and the
 * thread entries it wrote move too (each an `updated` event; the tickets' search documents name
 * this customer from then on). This customer's own properties stay as they are.
 */
export const mergeCustomerRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/customers/{id}/merge.json',
    tag: 'Customers',
    operationId: 'mergeCustomer',
    roles: AGENTS,
    summary:
      'Fold another customer into this one: contacts, company links, conversations and tickets move, the other is deleted',
    description:
      "Folds the customer named in the body into this one, in one transaction: its contacts (this customer keeps its main ones), company links, chat visitors, tickets (deleted ones too) and the thread entries it wrote move here, each with an `updated` or `linked` event, and the tickets' search documents are rewritten. The other customer is then deleted (its `deleted` event says `mergedInto`), this one gets a `merged` event, and its own properties stay as they were; answers it with its contacts and companies. Merging a customer into itself, or naming one that is not a live customer of the installation, is a 400 naming `customer.id`; an unknown `{id}` is a 404, and a moved value another write took at the same moment a 409 (nothing moved). See docs/resources/customers.md.",
    request: { params: idParams, body: { required: true, content: { 'application/json': { schema: mergeBody } } } },
    example: { params: { id: 1 }, body: { customer: { id: 2 } } },
    responses: {
      200: jsonResponse('the customer, with its contacts and companies', schemasOf(customersResource).one),
      409: errorResponse('another write took one of the moved contact values at the same moment; try again'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    const other = c.req.valid('json').customer;
    if (other === id) throw ApiError.invalid('customer.id', 'a customer cannot be merged into itself');
    const writer = c.var.db.http;
    const statements = [
      // both locked in id order, as every write locks them, and checked
      sql`WITH locked AS (SELECT ${customers.id} FROM ${customers} WHERE ${and(recordScope(customersResource, who, false, 'write'), inArray(customers.id, [id, other]))} ORDER BY ${customers.id} FOR UPDATE)
      SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM locked WHERE id = ${id}) THEN desk_refuse(404, 'id', ${`customer ${id} not found`}::text)
                  WHEN NOT EXISTS (SELECT 1 FROM locked WHERE id = ${other}) THEN desk_refuse(400, 'customer.id', ${`no customer ${other} here`}::text) END`,
      // The other's main contacts stay main only for types this customer has no main contact of;
      // an event says so when one loses the mark.
      sql`
      WITH mains AS (SELECT type FROM customer_contacts WHERE customer_id = ${id} AND is_main AND state = 'active'),
      before AS (SELECT id, is_main FROM customer_contacts WHERE customer_id = ${other} AND state = 'active' FOR UPDATE),
      changed AS (
        UPDATE customer_contacts c SET customer_id = ${id}, is_main = c.is_main AND c.type NOT IN (SELECT type FROM mains),
               updated_at = now(), updated_by = ${who.userId}::int
          FROM before WHERE c.id = before.id
        RETURNING c.id, before.is_main AS was_main, c.is_main)
      ${insertEventsFrom(sql`changed`, who, CONTACT_EVENTS, 'updated', sql`${customerChange(other, id)} || CASE WHEN r.was_main <> r.is_main THEN jsonb_build_object('isMain', jsonb_build_object('before', r.was_main, 'after', r.is_main)) ELSE '{}'::jsonb END`)}`,
      sql`
      WITH gone AS (DELETE FROM company_customers WHERE customer_id = ${other} RETURNING company_id),
      linked AS (
        INSERT INTO company_customers (installation_id, company_id, customer_id, created_by)
        SELECT ${who.installationId}::int, company_id, ${id}::int, ${who.userId}::int FROM gone
        ON CONFLICT DO NOTHING
        RETURNING customer_id AS id, company_id)
      ${insertEventsFrom(sql`linked`, who, 'customers', 'linked', sql`jsonb_build_object('relation', 'companies', 'record', jsonb_build_object('id', r.company_id, 'type', 'companies'), 'mergedFrom', ${other}::int)`)}`,
      // Chat visitors (live ones), tickets (deleted ones too, so that a restore names a live
      // customer) and the entries the other wrote name this customer; the tickets' search documents follow.
      moveToCustomer(who, { table: 'contacts', eventType: 'contacts', liveOnly: true }, other, id),
      moveToCustomer(who, { table: 'tickets', eventType: 'tickets', liveOnly: false }, other, id, MOVED_TICKETS),
      moveToCustomer(who, { table: 'ticket_messages', eventType: 'messages', liveOnly: false }, other, id),
      refreshSearchStatement(sql`t.id IN ${recalledIds(MOVED_TICKETS)}`),
      deleteStatement(
        writer,
        who,
        { table: customers, type: 'customers', where: eq(customers.id, other) },
        { mergedInto: { id, type: 'customers' } },
      ),
      recordEventsStatement(who, [
        { recordType: 'customers', recordId: id, kind: 'merged', data: { customer: { id: other, type: 'customers' } } },
      ]),
      ...settleContactsStatements(writer, who, sql`${id}::int`),
    ];
    const body = await sendWithReadBack(c.var.db, customersResource, who, statements, sql`${id}::int`, [
      'companies',
      'contacts',
    ]).catch((error: unknown) => {
      throw translateDbError(error, customersResource);
    });
    // locked and checked in the batch: only a customer gone in the same moment reads as nothing
    if (body === null) throw ApiError.notFound('id', `customer ${id} not found`);
    return c.json(body, 200);
  },
);
