import { and, eq, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { customers } from '../../db/schema';
import { tenantScope, type WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';
import { idValue } from '../../http/params';
import { ignoredPaths, noteIgnored } from '../../http/ignored-properties';
import { bodyObject } from '../../http/record-body';
import { addCustomerByEmail } from '../customers/new-customer';
import { emailAddress } from '../../lib/field-schemas';

/**
 * A ticket's customer as a body names it: an id, `{"id": 7}` (as the platform's client sends a
 * reference), `{"email": "..."}` (with an optional name for a new one), or both, as the platform's
 * client sends the customer it read: then the email must be one of that customer's.
 */
export const customerInput = z.union(
  [
    idValue,
    bodyObject({
      id: idValue.optional(),
      email: emailAddress.optional(),
      firstName: z.string().trim().max(255).optional(),
      lastName: z.string().trim().max(255).optional(),
      type: z.literal('customers').nullable().optional(),
      meta: z.unknown().optional(),
    })
      .refine(
        (customer) => customer.id !== undefined || customer.email !== undefined,
        'name the customer by id or by email',
      )
      .transform((customer) => {
        if (customer.id === undefined)
          return noteIgnored(
            { email: customer.email!, firstName: customer.firstName, lastName: customer.lastName },
            ignoredPaths(customer),
          );
        return customer.email === undefined ? customer.id : { id: customer.id, email: customer.email };
      }),
  ],
  {
    // what neither form takes (a bare address, a name): both forms said; the object form's own problem (a malformed email) named
    error: (issue) => {
      if (issue.code !== 'invalid_union') return undefined;
      const own = issue.errors.flat().find((inner) => inner.path.length > 0 || inner.code === 'custom');
      if (own) return own.path.length ? `${own.path.join('.')}: ${own.message}` : own.message;
      return 'must be a customer: its id N, {"id": N}, or {"email": "..."} (with firstName and lastName for a new one)';
    },
  },
);

type CustomerInput = z.output<typeof customerInput>;

/**
 * The installation's customer an address is an email contact of (ignoring case), as SQL: the one
 * rule by which an address names a customer (a ticket's, a mail's sender, a chat visitor's).
 */
export function customerOfEmail(installationId: number | SQL, email: string | SQL): SQL {
  return sql`(SELECT c.customer_id FROM customer_contacts c JOIN customers u ON u.id = c.customer_id AND u.state = 'active'
     WHERE c.installation_id = ${installationId} AND c.type = 'email' AND c.state = 'active' AND lower(c.value) = lower(${email})
     ORDER BY c.customer_id LIMIT 1)`;
}

/**
 * The id of the customer a ticket body names: one of the installation's live customers (400
 * otherwise), or the customer whose email contact has that address (ignoring case), made
 * (`addMethod: ticket`) when there is none.
 */
export async function resolveCustomer(context: WriteContext, input: CustomerInput): Promise<number> {
  const { tx, who } = context;
  if (typeof input === 'number' || 'id' in input) {
    const id = typeof input === 'number' ? input : input.id;
    const email = typeof input === 'number' ? undefined : input.email;
    const { rows } = await tx.execute(sql`
      SELECT EXISTS (SELECT 1 FROM ${customers} WHERE ${and(tenantScope(customers, who.installationId), eq(customers.id, id))}) AS here,
             ${email === undefined ? sql`NULL` : customerOfEmail(who.installationId, email)} AS of_email`);
    if (rows[0]?.here !== true) throw ApiError.invalid('ticket.customer', `no customer ${id} here`);
    if (email !== undefined && Number(rows[0].of_email) !== id)
      throw ApiError.invalid('ticket.customer.email', `${email} is not an email of customer ${id}`);
    return id;
  }
  const { rows: found } = await tx.execute(sql`SELECT ${customerOfEmail(who.installationId, input.email)} AS id`);
  if (found[0]?.id != null) return Number(found[0].id);
  return addCustomerByEmail(context, { ...input, addMethod: 'ticket' });
}
