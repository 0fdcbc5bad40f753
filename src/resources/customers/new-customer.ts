import { sql, type SQL } from 'drizzle-orm';
import type { Actor } from '../../auth/principal';
import type { CUSTOMER_ADD_METHODS } from '../../db/schema';
import type { WriteContext } from '../../engine';
import { insertEventsFrom } from '../../events/record-events';
import { CONTACT_EVENTS } from './customer-contacts';

/**
 * A new customer whose email's domain is a live domain of a company of kind `company` joins it:
 * a `linked` event of the customer saying `"addMethod": "domain"`.
 */
export async function joinCompaniesByDomain({ tx, who }: WriteContext, customerId: number): Promise<void> {
  await tx.execute(joinCompaniesStatement(who, sql`${customerId}::int`));
}

/** `joinCompaniesByDomain`'s statement, to run or to send in a batch (the customer's id as SQL). */
export function joinCompaniesStatement(who: Actor, customerId: SQL): SQL {
  return sql`
    WITH linked AS (
      INSERT INTO company_customers (installation_id, company_id, customer_id, created_by)
      SELECT ${who.installationId}::int, c.id, ${customerId}, ${who.userId}::int
        FROM companies c
        JOIN company_domains d ON d.company_id = c.id AND d.state = 'active'
        JOIN customers m ON m.id = ${customerId}
       WHERE c.installation_id = ${who.installationId} AND c.state = 'active' AND c.kind = 'company'
         AND d.name = lower(split_part(m.email, '@', 2))
      ON CONFLICT DO NOTHING
      RETURNING customer_id AS id, company_id)
    ${insertEventsFrom(sql`linked`, who, 'customers', 'linked', sql`jsonb_build_object('relation', 'companies', 'record', jsonb_build_object('id', r.company_id, 'type', 'companies'), 'addMethod', 'domain')`)}`;
}

/** A customer made from an email address: its address, name and how it came. */
export interface NewCustomer {
  email: string;
  firstName?: string;
  lastName?: string;
  addMethod: (typeof CUSTOMER_ADD_METHODS)[number];
}

/**
 * A customer made from an email address by another write (a ticket naming an unknown sender):
 * the customer with that address as its main email contact, each with its `created` event, and
 * joined to the companies of its email's domain, as a customer made through its own endpoint is.
 */
export async function addCustomerByEmail(context: WriteContext, customer: NewCustomer): Promise<number> {
  const { tx, who } = context;
  const { rows } = await tx.execute(addCustomerStatement(who, customer, sql`true`, sql`id`));
  const id = Number(rows[0]!.id);
  await joinCompaniesByDomain(context, id);
  return id;
}

/**
 * `addCustomerByEmail`'s customer and contact with their events, where `when` holds, in one
 * statement (to run or to send in a batch), answering `select` over the new customer (`customer`).
 * The join by domain is the caller's (`joinCompaniesStatement`).
 */
export function addCustomerStatement(who: WriteContext['who'], customer: NewCustomer, when: SQL, select: SQL): SQL {
  return sql`
    WITH customer AS (
      INSERT INTO customers (installation_id, email, first_name, last_name, add_method, created_by, updated_by)
      SELECT ${who.installationId}, ${customer.email}, ${customer.firstName ?? ''}, ${customer.lastName ?? ''}, ${customer.addMethod}, ${who.userId}::int, ${who.userId}::int
       WHERE ${when}
      RETURNING id),
    contact AS (
      INSERT INTO customer_contacts (installation_id, customer_id, type, value, is_main, created_by, updated_by)
      SELECT ${who.installationId}, id, 'email', ${customer.email}, true, ${who.userId}::int, ${who.userId}::int FROM customer
      RETURNING id, customer_id),
    customer_event AS (${insertEventsFrom(sql`customer`, who, 'customers', 'created')}),
    contact_event AS (${insertEventsFrom(sql`contact`, who, CONTACT_EVENTS, 'created', sql`jsonb_build_object('parent', jsonb_build_object('id', r.customer_id, 'type', 'customers'))`)})
    SELECT ${select} FROM customer`;
}
