import { defineModule } from '../../modules/module';
import { ticketStatusesResource } from './ticketstatuses.resource';

/** `/v2/ticketstatuses...`: the generic routes; a delete of a status in use names its replacement. */
export const ticketStatusesModule = defineModule({ name: 'ticketstatuses', resources: [ticketStatusesResource] });
