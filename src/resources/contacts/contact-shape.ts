import { contacts } from '../../db/schema';
import { refJson } from '../engine/record-json';
import type { RecordShape } from '../engine/resource';

/** Chat visitors as conversations and messages include them. */
export const contactShape: RecordShape = {
  type: 'contacts',
  table: contacts,
  properties: {
    name: contacts.name,
    email: contacts.email,
    customer: refJson(contacts.customerId, 'customers'),
  },
};
