import { defineModule } from '../../modules/module';
import { conversationsResource } from './conversations.resource';
import { createConversationRoute } from './create';
import { tellRoomStatus } from './tell-room';
import { conversationToTicketRoute } from './to-ticket-route';

/**
 * `/v2/conversations...`: list, get, PATCH, and the start of a conversation (by an agent, or the
 * chat widget with a contact form's token: its CORS is the widget's); a change of status reaches the room;
 * a conversation becomes a ticket on demand or when it closes unanswered (`to-ticket.ts`).
 */
export const conversationsModule = defineModule({
  name: 'conversations',
  resources: [conversationsResource],
  routes: [createConversationRoute, conversationToTicketRoute],
  subscribers: [tellRoomStatus],
});
