import { defineModule } from '../../modules/module';
import { conversationsResource } from './conversations.resource';
import { createConversationRoute } from './create';
import { tellRoomStatus } from './tell-room';

/**
 * `/v2/conversations...`: list, get, PATCH, and the start of a conversation (by an agent, or the
 * chat widget with a contact form's token: its CORS is the widget's); a change of status reaches the room.
 */
export const conversationsModule = defineModule({
  name: 'conversations',
  resources: [conversationsResource],
  routes: [createConversationRoute],
  subscribers: [tellRoomStatus],
});
