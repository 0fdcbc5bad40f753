import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { WriteContext } from '../../engine';
import { insertEventsFrom } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idValue } from '../../http/params';
import { CONTACT_EVENTS } from '../customers/customer-contacts';
import { customerEmail } from '../customers/customer-shape';

/**
 * A ticket's customer as a body names it: an id, `{"id": 7}` (as the platform's client sends a
 * reference), or `{"email": "..."}` (with an optional name for a new one), never both.
 */
export const customerInput = z.union([
  idValue,
  z
    .strictObject({
      id: idValue.optional(),
      email: customerEmail.optional(),
      firstName: z.string().trim().max(255).optional(),
      lastName: z.string().trim().max(255).optional(),
      type: z.literal('customers').nullable().optional(),
      meta: z.unknown().optional(),
    })
    .refine((customer) => (customer.id === undefined) !== (customer.email === undefined), 'name the customer by id or by email, not both')
    .transform((customer) => (customer.id !== undefined ? customer.id : { email: customer.email!, firstName: customer.firstName, lastName: customer.lastName })),
]);

type CustomerInput = z.output<typeof customerInput>;

/**
 * The id of the customer a ticket body names: one of the installation's live customers (400
 * otherwise), or the customer whose email contact has that address (ignoring case), created
 * (`addMethod: ticket`, with its main email contact, an event each) when there is none.
 */
export async function resolveCustomer({ tx, who }: WriteContext, input: CustomerInput): Promise<number> {
  if (typeof input === 'number') {
    const { rows } = await tx.execute(sql`SELECT id FROM customers WHERE id = ${input} AND installation_id = ${who.installationId} AND state = 'active'`);
    if (rows.length === 0) throw ApiError.invalid('ticket.customer', `no customer ${input} here`);
    return input;
  }
  const { rows: found } = await tx.execute(sql`
    SELECT c.customer_id AS id FROM customer_contacts c
     WHERE c.installation_id = ${who.installationId} AND c.type = 'email' AND c.state = 'active' AND lower(c.value) = lower(${input.email})
     LIMIT 1`);
  if (found[0]) return Number(found[0].id);
  const { rows: made } = await tx.execute(sql`
    WITH customer AS (
      INSERT INTO customers (installation_id, email, first_name, last_name, add_method, created_by, updated_by)
      VALUES (${who.installationId}, ${input.email}, ${input.firstName ?? ''}, ${input.lastName ?? ''}, 'ticket', ${who.userId}::int, ${who.userId}::int)
      RETURNING id),
    contact AS (
      INSERT INTO customer_contacts (installation_id, customer_id, type, value, is_main, created_by, updated_by)
      SELECT ${who.installationId}, id, 'email', ${input.email}, true, ${who.userId}::int, ${who.userId}::int FROM customer
      RETURNING id, customer_id),
    customer_event AS (${insertEventsFrom(sql`customer`, who, 'customers', 'created')}),
    contact_event AS (${insertEventsFrom(sql`contact`, who, CONTACT_EVENTS, 'created', sql`jsonb_build_object('parent', jsonb_build_object('id', r.customer_id, 'type', 'customers'))`)})
    SELECT id FROM customer`);
  return Number(made[0]!.id);
}
