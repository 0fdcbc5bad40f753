import { z } from 'zod';
import {
  aiDrafts,
  customers,
  EDIT_METHODS,
  EMAIL_STATES,
  ticketMessageRevisions,
  ticketMessages,
  tickets,
} from '../../db/schema';
import { referenceField, shapeOfFields, type WritableField } from '../../engine';
import { addressList } from './thread-entry';

/** `cc` or `bcc` as a client sends them back: null (the platform's client marshals an empty list so) changes nothing. */
const addressesOrNull = addressList.nullable().transform((list) => list ?? undefined);

/**
 * A thread entry's properties. Entries are added by the thread routes (`create-ticket-message.route.ts`, mail's `planned-entry.ts`); an edit
 * (`PUT /v2/messages/{id}.json`, `entry-edit.ts`) changes the body, the flags and the copies.
 */
export const messageFields: Record<string, WritableField> = {
  // the body as the platform has it: `message`, and `htmlBody`, which its client decodes into `message`
  message: { column: ticketMessages.htmlBody, schema: z.string().min(1).max(1_000_000), digestInEvents: true },
  htmlBody: { column: ticketMessages.htmlBody, schema: z.string(), readOnly: true },
  textBody: { column: ticketMessages.textBody, schema: z.string(), readOnly: true },
  threadType: { column: ticketMessages.threadType, schema: z.string(), readOnly: true },
  editMethod: { column: ticketMessages.editMethod, schema: z.enum(EDIT_METHODS) },
  ticket: referenceField(
    ticketMessages.ticketId,
    { table: tickets, type: 'tickets' },
    { required: true, readOnly: true },
  ),
  // the customer who wrote it; null: a teammate (`createdBy`)
  customer: referenceField(ticketMessages.customerId, { table: customers, type: 'customers' }, { readOnly: true }),
  cc: { column: ticketMessages.cc, schema: addressesOrNull },
  bcc: { column: ticketMessages.bcc, schema: addressesOrNull },
  isPinned: { column: ticketMessages.isPinned, schema: z.boolean() },
  isDraft: {
    column: ticketMessages.isDraft,
    schema: z.boolean().meta({ description: 'false sends a draft; a sent entry does not become a draft again' }),
  },
  viewedByCustomerAt: { column: ticketMessages.viewedByCustomerAt, schema: z.unknown(), readOnly: true },
  // mail out (src/resources/mail/outbound)
  emailStatus: {
    column: ticketMessages.emailStatus,
    schema: z.enum(EMAIL_STATES).nullable().meta({
      description:
        "the reply's mail to the customer: queued (to be sent, or tried again), sent, failed (see emailError); null: not mailed (a note, the customer's own message, a customer with no address)",
    }),
    readOnly: true,
  },
  emailError: {
    column: ticketMessages.emailError,
    schema: z
      .string()
      .nullable()
      .meta({ description: "why its mail failed, or why the last try did (Email Service's code and message)" }),
    readOnly: true,
  },
  aiDraft: referenceField(ticketMessages.aiDraftId, { table: aiDrafts, type: 'aidrafts' }, { readOnly: true }),
  aiSimilarity: {
    column: ticketMessages.aiSimilarity,
    schema: z.number().nullable().meta({
      description:
        'how closely a reply sent from an AI draft kept to it, 0 to 100 (docs/ai.md); set a moment after the reply is written; null: no draft',
    }),
    readOnly: true,
  },
  emailMessageId: {
    column: ticketMessages.emailMessageId,
    schema: z
      .string()
      .nullable()
      .meta({ description: 'the Message-ID it came in or went out as, without angle brackets' }),
    readOnly: true,
  },
};

/** A ticket's thread entries as the ticket includes them (`includes=messages`), in time order. */
export const messageShape = shapeOfFields({
  type: 'messages',
  component: 'Message',
  table: ticketMessages,
  fields: messageFields,
});

/** An earlier body of an entry, kept by an edit (`includes=revisions`): `createdAt` is when it was replaced. */
export const revisionShape = shapeOfFields({
  type: 'messagerevisions',
  component: 'MessageRevision',
  table: ticketMessageRevisions,
  fields: {
    message: { column: ticketMessageRevisions.htmlBody, schema: z.string(), readOnly: true },
    textBody: { column: ticketMessageRevisions.textBody, schema: z.string(), readOnly: true },
    editMethod: { column: ticketMessageRevisions.editMethod, schema: z.string(), readOnly: true },
  },
});
