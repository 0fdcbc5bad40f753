import { conversationMessages } from '../../db/schema';
import { refProperty, timeProperty } from '../../engine';
import type { RecordShape } from '../../engine';

/** The read-only properties of a message, shared by its resource and the conversation's `includes`. */
export const messageProperties = {
  conversation: refProperty(conversationMessages.conversationId, 'conversations', false),
  author: conversationMessages.author,
  contactId: conversationMessages.contactId,
  userId: conversationMessages.userId,
  roomId: conversationMessages.clientId,
  sentAt: timeProperty(conversationMessages.sentAt, false),
  aiDraft: conversationMessages.aiDraft,
  aiSimilarity: conversationMessages.aiSimilarity,
};

export const messageShape: RecordShape = {
  type: 'conversationmessages',
  component: 'ConversationMessageEntry',
  table: conversationMessages,
  properties: { message: conversationMessages.message, ...messageProperties },
};
