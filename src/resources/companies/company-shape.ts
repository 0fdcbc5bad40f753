import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { emailAddress, optionalText } from '../../lib/field-schemas';
import { companies, companyCustomers, COMPANY_KINDS, COMPANY_PERMISSIONS, customers } from '../../db/schema';
import { shapeOfFields, type ComputedField, type WritableField } from '../../engine';

/** A company's own properties: its resource's fields, and the shape other records include it with. */
export const companyFields: Record<string, WritableField> = {
  name: { column: companies.name, schema: z.string().trim().min(1).max(255), required: true },
  description: { column: companies.description, schema: optionalText(10_000) },
  details: { column: companies.details, schema: optionalText(10_000) },
  industry: { column: companies.industry, schema: optionalText(255) },
  website: { column: companies.website, schema: optionalText(2048) },
  email: { column: companies.email, schema: emailAddress.nullable() },
  permission: { column: companies.permission, schema: z.enum(COMPANY_PERMISSIONS) },
  kind: { column: companies.kind, schema: z.enum(COMPANY_KINDS) },
  note: { column: companies.note, schema: optionalText(10_000) },
  avatarPath: { column: companies.avatarPath, schema: optionalText(2048) },
};

export const companyComputed: Record<string, ComputedField> = {
  customersCount: {
    type: 'integer',
    schema: z.number().int().meta({ description: 'live customers linked to the company' }),
    expr: sql`(SELECT count(*)::int FROM ${companyCustomers} JOIN ${customers} ON ${customers.id} = ${companyCustomers.customerId}
      WHERE ${companyCustomers.companyId} = ${companies.id} AND ${customers.state} = 'active')`,
  },
};

/** Companies as other records include them (a customer's `companies`). */
export const companyShape = shapeOfFields({
  type: 'companies',
  component: 'Company',
  table: companies,
  fields: companyFields,
  computed: companyComputed,
});
