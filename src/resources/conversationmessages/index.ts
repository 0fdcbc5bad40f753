import { defineModule } from '../../modules/module';
import { conversationMessagesResource } from './conversationmessages.resource';
import { getConversationHistoryRoute } from './get-conversation-history.route';
import { tellRoomMessageChanges } from './tell-room-message-changes.subscriber';
import { receiveConversationMessagesRoute } from './receive-conversation-messages.route';

/**
 * `/v2/conversationmessages...`: list, PATCH, DELETE, bulk update and bulk delete; the public
 * history by token; the rooms' signed deliveries. Edits and deletions reach the rooms (`tell-room-message-changes.subscriber.ts`).
 */
export const conversationMessagesModule = defineModule({
  name: 'conversationmessages',
  resources: [conversationMessagesResource],
  routes: [getConversationHistoryRoute, receiveConversationMessagesRoute],
  subscribers: [tellRoomMessageChanges],
});
