import { defineModule } from '../../modules/module';
import { ticketTypesResource } from './tickettypes.resource';

/** `/v2/tickettypes...`: the generic routes; `inboxes` limits a type to some inboxes. */
export const ticketTypesModule = defineModule({ name: 'tickettypes', resources: [ticketTypesResource] });
