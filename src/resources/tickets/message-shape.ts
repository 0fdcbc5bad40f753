import { ticketMessages } from '../../db/schema';
import { refProperty, type RecordShape } from '../../engine';

/** A ticket's thread entries as the ticket includes them (`includes=messages`), in time order. */
export const messageShape: RecordShape = {
  type: 'messages',
  component: 'Message',
  table: ticketMessages,
  properties: {
    // the body as the platform has it: `message`, and `htmlBody`, which its client decodes into `message`
    message: ticketMessages.htmlBody,
    htmlBody: ticketMessages.htmlBody,
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
