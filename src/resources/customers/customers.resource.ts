import { sql } from 'drizzle-orm';
import { AGENTS, EVERYONE } from '../../auth/access';
import { companyCustomers, customerContacts, customers } from '../../db/schema';
import { AUDIT_SET, defineResource, manyToMany } from '../../engine';
import { companyShape } from '../companies/company-shape';
import { includedUsers } from '../users/user-shape';
import {
  checkContactsUpdate,
  contactsRelation,
  placeEmail,
  placeEmailOfNew,
  settleContacts,
  settleContactsStatements,
} from './customer-contacts';
import { customerComputed, customerFields } from './customer-shape';
import { joinCompaniesByDomain, joinCompaniesStatement } from './new-customer';

export const customersResource = defineResource({
  type: 'customers',
  singular: 'customer',
  title: { one: 'Customer', many: 'Customers' },
  table: customers,
  fields: customerFields,
  computed: customerComputed,
  filter: [
    ...AUDIT_SET,
    'addMethod',
    'contacts.value',
    'email',
    'externalId',
    'firstName',
    'jobTitle',
    'lastName',
    'numTickets',
    'organization',
    'permission',
    'phone',
    'mobile',
    'trusted',
    'twitterHandle',
    'verifiedEmail',
    'welcomeEmailSent',
  ],
  relatedFilter: {
    'contacts.value': {
      // as values are unique: ignoring case (and by the lower(value) index)
      expr: sql`lower(${customerContacts.value})`,
      type: 'string',
      caseInsensitive: true,
      exists: (condition) =>
        sql`EXISTS (SELECT 1 FROM ${customerContacts} WHERE ${customerContacts.customerId} = ${customers.id} AND ${customerContacts.state} = 'active' AND ${condition})`,
    },
  },
  orderByExtra: {
    name: sql`lower(${customers.firstName} || ' ' || ${customers.lastName})`,
  },
  relations: {
    companies: manyToMany({
      name: 'companies',
      target: companyShape,
      through: companyCustomers,
      parentKey: companyCustomers.customerId,
      targetKey: companyCustomers.companyId,
    }),
    contacts: contactsRelation,
    users: includedUsers(),
  },
  includedWrites: ['contacts'],
  ignored: ['customerwelcomeemails'],
  constraints: {
    customer_contacts_value_key: {
      source: 'customer.contacts',
      detail: 'another customer took one of these contact values at the same moment; try again',
    },
    customer_contacts_one_main_key: {
      source: 'customer.contacts',
      detail: 'only one contact of each type can be main',
    },
  },
  access: { read: EVERYONE, write: AGENTS },
  examples: {
    create: { firstName: 'Grace', lastName: 'Hopper', email: 'grace@customer.example', organization: 'Navy Labs' },
    update: { jobTitle: 'Rear admiral' },
  },
  beforeWrite: placeEmail,
  planned: {
    // an update sending `email` or `contacts` reads the stored contacts first (two exchanges)
    before: (who, record, id, read) =>
      id === undefined ? placeEmailOfNew(record, id) : checkContactsUpdate(read, who, record, id),
    after: (db, who, record, id, created) => [
      ...(record.contacts !== undefined || record.email !== undefined ? settleContactsStatements(db, who, id) : []),
      ...(created && record.companies === undefined ? [joinCompaniesStatement(who, id)] : []),
    ],
    // a bulk update sets neither `email` nor `contacts` (not taken in bulk): no rule of theirs applies, one batch
    bulkFirst: () => [],
    bulkAfter: () => [],
  },
  async afterWrite(context, record, id, created) {
    // A customer written before contacts existed (and without one) stays writable until its contacts or email are.
    if (record.contacts !== undefined || record.email !== undefined) await settleContacts(context, id);
    if (created && record.companies === undefined) await joinCompaniesByDomain(context, id);
  },
});
