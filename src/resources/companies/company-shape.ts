import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { companies, companyCustomers, COMPANY_KINDS, COMPANY_PERMISSIONS, customers } from '../../db/schema';
import { shapeOfFields, type ComputedField, type WritableField } from '../../engine';

const text = (max: number) => z.string().trim().max(max).nullable();

/** A company's own properties: its resource's fields, and the shape other records include it with. */
export const companyFields: Record<string, WritableField> = {
  name: { column: companies.name, schema: z.string().trim().min(1).max(255), required: true },
  description: { column: companies.description, schema: text(10_000) },
  details: { column: companies.details, schema: text(10_000) },
  industry: { column: companies.industry, schema: text(255) },
  website: { column: companies.website, schema: text(2048) },
  email: { column: companies.email, schema: z.email().max(254).nullable() },
  permission: { column: companies.permission, schema: z.enum(COMPANY_PERMISSIONS) },
  kind: { column: companies.kind, schema: z.enum(COMPANY_KINDS) },
  note: { column: companies.note, schema: text(10_000) },
  avatarPath: { column: companies.avatarPath, schema: text(2048) },
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
export const companyShape = shapeOfFields({ type: 'companies', component: 'Company', table: companies, fields: companyFields, computed: companyComputed });
