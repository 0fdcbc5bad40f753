import { defineModule } from '../../modules/module';
import { ticketPrioritiesResource } from './ticketpriorities.resource';

/** `/v2/ticketpriorities...`: the generic routes. */
export const ticketPrioritiesModule = defineModule({ name: 'ticketpriorities', resources: [ticketPrioritiesResource] });
