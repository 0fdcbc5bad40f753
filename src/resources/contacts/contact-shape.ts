import { contacts } from '../../db/schema';
import { refProperty } from '../../engine';
import type { RecordShape } from '../../engine';

/** Chat visitors as conversations and messages include them. */
export const contactShape: RecordShape = {
  type: 'contacts',
  component: 'Contact',
  table: contacts,
  properties: {
    name: contacts.name,
    email: contacts.email,
    customer: refProperty(contacts.customerId, 'customers'),
  },
};
