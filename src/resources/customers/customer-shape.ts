import { customers } from '../../db/schema';
import type { RecordShape } from '../../engine';

/** Customers as other resources include them. Their own endpoints come with the customers work. */
export const customerShape: RecordShape = {
  type: 'customers',
  component: 'Customer',
  table: customers,
  properties: {
    firstName: customers.firstName,
    lastName: customers.lastName,
    email: customers.email,
    organization: customers.organization,
    jobTitle: customers.jobTitle,
    phone: customers.phone,
    mobile: customers.mobile,
    address: customers.address,
    notes: customers.notes,
    externalId: customers.externalId,
    extraData: customers.extraData,
    trusted: customers.trusted,
    verifiedEmail: customers.verifiedEmail,
  },
};
