import { z } from 'zod';
import { customers, ticketMessages, tickets } from '../../db/schema';
import { referenceField, shapeOfFields, type WritableField } from '../../engine';

/**
 * A thread entry's properties. Entries are written by the thread routes (`thread.ts`), never
 * through these fields: every one is read-only here.
 */
export const messageFields: Record<string, WritableField> = {
  // the body as the platform has it: `message`, and `htmlBody`, which its client decodes into `message`
  message: { column: ticketMessages.htmlBody, schema: z.string(), readOnly: true },
  htmlBody: { column: ticketMessages.htmlBody, schema: z.string(), readOnly: true },
  textBody: { column: ticketMessages.textBody, schema: z.string(), readOnly: true },
  threadType: { column: ticketMessages.threadType, schema: z.string(), readOnly: true },
  editMethod: { column: ticketMessages.editMethod, schema: z.string(), readOnly: true },
  ticket: referenceField(ticketMessages.ticketId, { table: tickets, type: 'tickets' }, { required: true, readOnly: true }),
  // the customer who wrote it; null: a teammate (`createdBy`)
  customer: referenceField(ticketMessages.customerId, { table: customers, type: 'customers' }, { readOnly: true }),
  cc: { column: ticketMessages.cc, schema: z.array(z.string()), readOnly: true },
  bcc: { column: ticketMessages.bcc, schema: z.array(z.string()), readOnly: true },
  isPinned: { column: ticketMessages.isPinned, schema: z.boolean(), readOnly: true },
  isDraft: { column: ticketMessages.isDraft, schema: z.boolean(), readOnly: true },
  viewedByCustomerAt: { column: ticketMessages.viewedByCustomerAt, schema: z.unknown(), readOnly: true },
};

/** A ticket's thread entries as the ticket includes them (`includes=messages`), in time order. */
export const messageShape = shapeOfFields({ type: 'messages', component: 'Message', table: ticketMessages, fields: messageFields });
