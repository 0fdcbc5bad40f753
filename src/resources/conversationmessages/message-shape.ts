import { conversationMessages } from '../../db/schema';
import { computedFrom, refProperty, timeProperty } from '../../engine';
import type { ComputedField, RecordShape } from '../../engine';

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

/** What the room recorded of a message, read-only and filterable: its resource's and the public history's alike. */
export const roomRecordComputed: Record<string, ComputedField> = {
  conversation: computedFrom(messageProperties.conversation, 'integer'),
  author: computedFrom(messageProperties.author, 'enum'),
  contactId: computedFrom(messageProperties.contactId, 'integer'),
  userId: computedFrom(messageProperties.userId, 'integer'),
  roomId: computedFrom(messageProperties.roomId, 'string'),
  sentAt: computedFrom(messageProperties.sentAt, 'datetime'),
};
