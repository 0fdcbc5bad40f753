import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { MAX_MESSAGE_LENGTH } from '../../realtime/room-limits';
import { AGENTS, EVERYONE } from '../../auth/access';
import { contacts, conversationMessageFiles, conversationMessages } from '../../db/schema';
import { contactShape } from '../contacts/contact-shape';
import { customerShape } from '../customers/customer-shape';
import { manyToMany, referencedBy } from '../../engine';
import { AUDIT_SET, computedFrom, defineResource } from '../../engine';
import { fileShape } from '../files/file-shape';
import { includedUsers } from '../users/user-shape';
import { messageProperties, roomRecordComputed } from './message-shape';

const m = conversationMessages;

/**
 * The messages of conversations, as the rooms delivered them (`webhooks.json`). Agents may
 * correct or remove one; everything but the text is the room's record of what was said.
 */
export const conversationMessagesResource = defineResource({
  type: 'conversationmessages',
  singular: 'conversationmessage',
  title: { one: 'ConversationMessage', many: 'ConversationMessages' },
  table: m,
  fields: {
    message: {
      column: m.message,
      schema: z
        .string()
        .max(MAX_MESSAGE_LENGTH)
        .refine((text) => text.trim() !== '', 'must not be blank'),
    },
  },
  // Everything but the text is the room's record: read-only.
  computed: {
    ...roomRecordComputed,
    aiDraft: computedFrom(messageProperties.aiDraft, 'string'),
    aiSimilarity: computedFrom(messageProperties.aiSimilarity, 'string'),
  },
  filter: [...AUDIT_SET, 'contactId', 'message', 'userId'],
  relations: {
    contacts: referencedBy({ target: contactShape, columns: () => [m.contactId] }),
    customers: referencedBy({
      target: customerShape,
      columns: () => [sql`(SELECT ${contacts.customerId} FROM ${contacts} WHERE ${contacts.id} = ${m.contactId})`],
    }),
    files: manyToMany({
      name: 'files',
      target: fileShape,
      through: conversationMessageFiles,
      parentKey: conversationMessageFiles.messageId,
      targetKey: conversationMessageFiles.fileId,
    }),
    users: includedUsers(() => [m.userId]),
  },
  access: { read: EVERYONE, write: AGENTS },
  examples: {
    update: { message: 'Thanks, that solved it!' },
  },
  operations: ['list', 'update', 'delete', 'bulkUpdate', 'bulkDelete'],
});
