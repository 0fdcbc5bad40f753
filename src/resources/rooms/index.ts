import { defineModule } from '../../modules/module';
import { joinRoomRoute } from './join';

/** `/v2/rooms/{token}/socket`: public, the token is the credential. */
export const roomsModule = defineModule({ name: 'rooms', routes: [joinRoomRoute] });
