import { defineModule } from '../../modules/module';
import { askVisitorForEmailProof } from './ask-visitor-for-email-proof.subscriber';
import { conversationsResource } from './conversations.resource';
import { convertConversationToTicketRoute } from './convert-conversation-to-ticket.route';
import { createConversationRoute } from './create-conversation.route';
import { tellRoomStatus } from './tell-room-status.subscriber';
import { ticketOnClose } from './ticket-on-close.subscriber';

/**
 * `/v2/conversations...`: list, get, PATCH, and the start of a conversation (by an agent, or the
 * chat widget with a contact form's token: its CORS is the widget's); a change of status reaches the room;
 * a widget visitor's address is asked for proof once the conversation is written (`ask-visitor-for-email-proof.subscriber.ts`);
 * a conversation becomes a ticket on demand or, once it closed unanswered, by the drain (`to-ticket.ts`).
 */
export const conversationsModule = defineModule({
  name: 'conversations',
  resources: [conversationsResource],
  routes: [createConversationRoute, convertConversationToTicketRoute],
  subscribers: [tellRoomStatus, askVisitorForEmailProof, ticketOnClose],
});
