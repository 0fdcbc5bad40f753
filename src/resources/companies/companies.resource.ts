import { sql } from 'drizzle-orm';
import { AGENTS, EVERYONE } from '../../auth/access';
import { companies, companyAddresses, companyDomains, companyInboxes, companyPhones } from '../../db/schema';
import { AUDIT_SET, defineResource } from '../../engine';
import { companyRelations } from './company-relations';
import { companyComputed, companyFields } from './company-shape';

const liveChild = (table: typeof companyAddresses | typeof companyDomains | typeof companyPhones) =>
  sql`${table.companyId} = ${companies.id} AND ${table.state} = 'active'`;

export const companiesResource = defineResource({
  type: 'companies',
  singular: 'company',
  title: { one: 'Company', many: 'Companies' },
  table: companies,
  fields: companyFields,
  computed: companyComputed,
  filter: [
    ...AUDIT_SET,
    'avatarPath',
    'customersCount',
    'details',
    'email',
    'industry',
    'kind',
    'name',
    'permission',
    'website',
  ],
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
  examples: {
    create: {
      name: 'Acme Supplies',
      website: 'https://acme.example',
      domains: [{ name: 'acme.example' }],
      permission: 'all',
    },
    update: { industry: 'Wholesale', note: 'Renews in March' },
  },
});
