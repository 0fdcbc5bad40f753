import { conversationMessages } from '../../db/schema';
import { isoTime, refJson } from '../engine/record-json';
import type { RecordShape } from '../engine/resource';

/** The read-only properties of a message, shared by its resource and the conversation's `includes`. */
export const messageProperties = {
  conversation: refJson(conversationMessages.conversationId, 'conversations'),
  author: conversationMessages.author,
  contactId: conversationMessages.contactId,
  userId: conversationMessages.userId,
  roomId: conversationMessages.clientId,
  sentAt: isoTime(conversationMessages.sentAt),
  aiDraft: conversationMessages.aiDraft,
  aiSimilarity: conversationMessages.aiSimilarity,
};

export const messageShape: RecordShape = {
  type: 'conversationmessages',
  table: conversationMessages,
  properties: { message: conversationMessages.message, ...messageProperties },
};
