import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { AGENTS, EVERYONE } from '../../auth/access';
import {
  companies,
  companyAddresses,
  companyCustomers,
  companyDomains,
  companyInboxes,
  companyPhones,
  COMPANY_KINDS,
  COMPANY_PERMISSIONS,
  customers,
} from '../../db/schema';
import { AUDIT_SET, defineResource } from '../../engine';
import { companyRelations } from './company-relations';

const text = (max: number) => z.string().trim().max(max).nullable();

const liveChild = (table: typeof companyAddresses | typeof companyDomains | typeof companyPhones) =>
  sql`${table.companyId} = ${companies.id} AND ${table.state} = 'active'`;

export const companiesResource = defineResource({
  type: 'companies',
  singular: 'company',
  title: { one: 'Company', many: 'Companies' },
  table: companies,
  fields: {
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
  },
  computed: {
    customersCount: {
      type: 'integer',
      schema: z.number().int().meta({ description: 'live customers linked to the company' }),
      expr: sql`(SELECT count(*)::int FROM ${companyCustomers} JOIN ${customers} ON ${customers.id} = ${companyCustomers.customerId}
        WHERE ${companyCustomers.companyId} = ${companies.id} AND ${customers.state} = 'active')`,
    },
  },
  filter: [...AUDIT_SET, 'avatarPath', 'customersCount', 'details', 'email', 'industry', 'kind', 'name', 'permission', 'website'],
  orderByExtra: {
    address: sql`(SELECT concat_ws(', ', ${companyAddresses.line1}, ${companyAddresses.line2}, ${companyAddresses.city}, ${companyAddresses.region}, ${companyAddresses.postalCode}, ${companyAddresses.country})
      FROM ${companyAddresses} WHERE ${liveChild(companyAddresses)} ORDER BY ${companyAddresses.id} LIMIT 1)`,
    'address.country': sql`(SELECT ${companyAddresses.country} FROM ${companyAddresses} WHERE ${liveChild(companyAddresses)} ORDER BY ${companyAddresses.id} LIMIT 1)`,
    'domains.id': sql`(SELECT min(${companyDomains.id}) FROM ${companyDomains} WHERE ${liveChild(companyDomains)})`,
    'domains.name': sql`(SELECT min(${companyDomains.name}) FROM ${companyDomains} WHERE ${liveChild(companyDomains)})`,
    'inboxes.id': sql`(SELECT min(${companyInboxes.inboxId}) FROM ${companyInboxes} WHERE ${companyInboxes.companyId} = ${companies.id})`,
    phones: sql`(SELECT min(${companyPhones.number}) FROM ${companyPhones} WHERE ${liveChild(companyPhones)})`,
  },
  relations: companyRelations,
  constraints: {
    companies_installation_name_key: { source: 'company.name', detail: 'a company with this name already exists' },
  },
  access: { read: EVERYONE, write: AGENTS },
});
