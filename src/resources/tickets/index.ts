import { defineModule } from '../../modules/module';
import { ticketsResource } from './tickets.resource';

/** `/v2/tickets...`: the generic routes; the first message becomes the first thread entry. */
export const ticketsModule = defineModule({ name: 'tickets', resources: [ticketsResource] });
