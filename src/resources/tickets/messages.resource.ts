import { AGENTS, EVERYONE } from '../../auth/access';
import { ticketMessageFiles, ticketMessageMentions, ticketMessageRevisions, ticketMessages } from '../../db/schema';
import { AUDIT_SET, defineResource, manyToMany, ownedRecords, readOnlyRelation } from '../../engine';
import { fileShape } from '../files/file-shape';
import { includedUsers, userShape } from '../users/user-shape';
import { finishEntryDelete, finishEntryEdit, plannedEntryEdit, prepareEntryEdit } from './entry-edit';
import { messageFields, revisionShape } from './message-shape';
import { ofVisibleTicket } from './ticket-visibility';

/** The teammates an entry mentions: written with the entry (`planned-entry.ts`), read with `includes=mentions`. */
export const mentionsRelation = manyToMany({
  name: 'mentions',
  target: userShape,
  through: ticketMessageMentions,
  parentKey: ticketMessageMentions.messageId,
  targetKey: ticketMessageMentions.userId,
});

/**
 * A ticket's thread entries, read on their own: `GET /v2/messages.json`, `GET /v2/messages/{id}.json`
 * and, per ticket and paginated, `GET /v2/tickets/{id}/messages.json` (`list-ticket-messages.route.ts`). A caller sees
 * the entries of the live tickets they see.
 */
export const messagesResource = defineResource({
  type: 'messages',
  singular: 'message',
  title: { one: 'Message', many: 'Messages', group: 'Tickets' },
  table: ticketMessages,
  fields: messageFields,
  filter: [...AUDIT_SET, 'customer', 'editMethod', 'emailStatus', 'isDraft', 'isPinned', 'threadType', 'ticket'],
  // a merged thread reads in the time its entries were written
  defaultOrderBy: 'createdAt',
  relations: {
    users: includedUsers(),
    revisions: ownedRecords({ shape: revisionShape, parentKey: ticketMessageRevisions.messageId }),
    // attached when the entry is written (`files` of a reply or a new ticket); read only here
    mentions: readOnlyRelation(mentionsRelation),
    files: readOnlyRelation(
      manyToMany({
        name: 'files',
        target: fileShape,
        through: ticketMessageFiles,
        parentKey: ticketMessageFiles.messageId,
        targetKey: ticketMessageFiles.fileId,
      }),
    ),
  },
  // what the platform's client marshals on every message
  ignored: ['assigningUser', 'contact', 'delayed', 'status'],
  access: { read: EVERYONE, write: AGENTS },
  examples: {
    update: { isPinned: true },
  },
  operations: ['list', 'get', 'update', 'delete'],
  scope: ofVisibleTicket(ticketMessages.ticketId),
  beforeWrite: prepareEntryEdit,
  afterWrite: finishEntryEdit,
  planned: plannedEntryEdit,
  afterDelete: finishEntryDelete,
});
