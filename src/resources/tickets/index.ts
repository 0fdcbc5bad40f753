import { defineModule } from '../../modules/module';
import { messagesResource } from './messages.resource';
import { createThreadEntryRoute, threadRoute } from './thread';
import { ticketsResource } from './tickets.resource';

/**
 * `/v2/tickets...` and `/v2/messages...`: tickets (the generic routes; the first message becomes
 * the first thread entry), their threads (replies and notes, paginated apart from the ticket),
 * and thread entries read on their own.
 */
export const ticketsModule = defineModule({ name: 'tickets', resources: [ticketsResource, messagesResource], routes: [createThreadEntryRoute, threadRoute] });
