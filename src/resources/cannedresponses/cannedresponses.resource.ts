import { z } from 'zod';
import { AGENTS, EVERYONE } from '../../auth/access';
import { cannedResponseFiles, cannedResponses, inboxes } from '../../db/schema';
import { manyToMany, referencedBy } from '../../engine';
import { referenceField } from '../../engine';
import { AUDIT_SET, defineResource } from '../../engine';
import { fileShape } from '../files/file-shape';
import { inboxShape } from '../inboxes/inbox-shape';
import { includedUsers } from '../users/user-shape';

export const cannedResponsesResource = defineResource({
  type: 'cannedresponses',
  singular: 'cannedresponse',
  title: { one: 'CannedResponse', many: 'CannedResponses' },
  table: cannedResponses,
  fields: {
    name: { column: cannedResponses.name, schema: z.string().trim().min(1).max(255), required: true },
    // The reply is inserted into conversations as written, so its whitespace is kept.
    reply: {
      column: cannedResponses.reply,
      schema: z
        .string()
        .max(100_000)
        .refine((reply) => reply.trim() !== '', 'must not be blank'),
      required: true,
    },
    inbox: referenceField(cannedResponses.inboxId, { table: inboxes, type: 'inboxes' }),
  },
  filter: [...AUDIT_SET, 'inbox', 'name', 'reply'],
  relations: {
    files: manyToMany({
      name: 'files',
      target: fileShape,
      through: cannedResponseFiles,
      parentKey: cannedResponseFiles.cannedResponseId,
      targetKey: cannedResponseFiles.fileId,
    }),
    inboxes: referencedBy({ target: inboxShape, columns: () => [cannedResponses.inboxId] }),
    users: includedUsers(),
  },
  access: { read: EVERYONE, write: AGENTS },
  examples: {
    create: { name: 'Password reset', reply: '<p>You can reset your password from the sign-in page.</p>' },
    update: { name: 'Password reset (short)' },
  },
  operations: ['list', 'get', 'create', 'update', 'delete'],
});
