import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { emailAddress, optionalText, optionalWebAddress } from '../../lib/field-schemas';
import { CUSTOMER_ADD_METHODS, CUSTOMER_PERMISSIONS, customers } from '../../db/schema';
import { shapeOfFields, type ComputedField, type WritableField } from '../../engine';

/**
 * A customer's own properties, as the platform's record has them: the customers resource's
 * fields, and the shape other records include a customer with (a company's `customers`).
 */
export const customerFields: Record<string, WritableField> = {
  firstName: { column: customers.firstName, schema: z.string().trim().max(255) },
  lastName: { column: customers.lastName, schema: z.string().trim().max(255) },
  // The main email contact's value (customer-contacts.ts keeps them one).
  email: { column: customers.email, schema: emailAddress, notInBulk: true },
  organization: { column: customers.organization, schema: optionalText(255) },
  jobTitle: { column: customers.jobTitle, schema: optionalText(255) },
  phone: { column: customers.phone, schema: optionalText(40) },
  mobile: { column: customers.mobile, schema: optionalText(40) },
  address: { column: customers.address, schema: optionalText(1000) },
  notes: { column: customers.notes, schema: optionalText(10_000) },
  externalId: { column: customers.externalId, schema: optionalText(255) },
  extraData: { column: customers.extraData, schema: optionalText(65_535) },
  trusted: { column: customers.trusted, schema: z.boolean() },
  verifiedEmail: { column: customers.verifiedEmail, schema: z.boolean() },
  linkedinURL: { column: customers.linkedinUrl, schema: optionalWebAddress },
  facebookURL: { column: customers.facebookUrl, schema: optionalWebAddress },
  twitterHandle: {
    column: customers.twitterHandle,
    schema: z
      .string()
      .trim()
      .regex(/^@?\w{1,15}$/, 'must be a handle such as @acme')
      .nullable(),
  },
  avatarURL: { column: customers.avatarUrl, schema: optionalWebAddress },
  welcomeEmailSent: { column: customers.welcomeEmailSent, schema: z.boolean() },
  permission: { column: customers.permission, schema: z.enum(CUSTOMER_PERMISSIONS) },
  addMethod: {
    column: customers.addMethod,
    schema: z
      .enum(CUSTOMER_ADD_METHODS)
      .meta({ description: 'how the customer came to be: api, widget, email, ticket or import' }),
    readOnly: true,
  },
};

export const customerComputed: Record<string, ComputedField> = {
  // Tickets arrive with the tickets work; until then a customer has none.
  numTickets: {
    type: 'integer',
    schema: z.number().int().meta({ description: "the customer's tickets" }),
    expr: sql`0`,
  },
};

/** Customers as other records include them (a company's `customers`, a conversation's). */
export const customerShape = shapeOfFields({
  type: 'customers',
  component: 'Customer',
  table: customers,
  fields: customerFields,
  computed: customerComputed,
});
