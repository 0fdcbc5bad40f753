import { ticketMessages } from '../../db/schema';
import { refProperty, type RecordShape } from '../../engine';

/** A ticket's thread entries as the ticket includes them (`includes=messages`), in time order. */
export const messageShape: RecordShape = {
  type: 'messages',
  component: 'Message',
  table: ticketMessages,
  properties: {
    // the platform's client reads the body as `message`
    message: ticketMessages.htmlBody,
    textBody: ticketMessages.textBody,
    threadType: ticketMessages.threadType,
    editMethod: ticketMessages.editMethod,
    ticket: refProperty(ticketMessages.ticketId, 'tickets', false),
    customer: refProperty(ticketMessages.customerId, 'customers'),
    cc: ticketMessages.cc,
    bcc: ticketMessages.bcc,
    isPinned: ticketMessages.isPinned,
    isDraft: ticketMessages.isDraft,
    viewedByCustomerAt: ticketMessages.viewedByCustomerAt,
  },
};
