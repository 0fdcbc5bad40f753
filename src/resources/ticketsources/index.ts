import { defineModule } from '../../modules/module';
import { ticketSourcesResource } from './ticketsources.resource';

/** `/v2/ticketsources...`: the generic routes; the platform's channels cannot be deleted. */
export const ticketSourcesModule = defineModule({ name: 'ticketsources', resources: [ticketSourcesResource] });
