import { defineModule } from '../../modules/module';
import { joinConversationRoomRoute } from './join-conversation-room.route';

/** `/v2/rooms/{token}/socket`: public, the token is the credential. */
export const roomsModule = defineModule({ name: 'rooms', routes: [joinConversationRoomRoute] });
