import { EVERYONE } from '../../auth/access';
import { conversationMessages } from '../../db/schema';
import { defineResource } from '../../engine';
import { conversationMessagesResource } from './conversationmessages.resource';
import { roomRecordComputed } from './message-shape';

/**
 * The messages as the public history answers them (the room's token is the only credential):
 * what was said, by whom and when, and nothing the installation keeps beside it. No relations (so
 * no `includes`), no audit or state filters (a deleted message stays gone), no AI draft or its
 * similarity. Routes are never made from it: only `get-conversation-history.route.ts` reads through it.
 */
export const conversationHistoryView = defineResource({
  type: 'conversationmessages',
  singular: 'conversationmessage',
  title: { one: 'ConversationHistoryMessage', many: 'ConversationHistoryMessages' },
  table: conversationMessages,
  fields: { message: { ...conversationMessagesResource.fields.message!, readOnly: true } },
  computed: roomRecordComputed,
  filter: ['id', 'message', 'contactId', 'userId', 'sentAt'],
  relations: {},
  access: { read: EVERYONE, write: [] },
  operations: [],
});
