import { defineModule } from '../../modules/module';
import { applyTriggerToTicketsRoute } from './apply-trigger-to-tickets.route';
import { applyTriggerRoute } from './apply-trigger.route';
import { runTicketWalks } from './ticket-walks';
import { ticketTriggers } from './ticket-triggers.subscriber';
import { triggersResource } from './triggers.resource';

/**
 * `/v2/triggers...`: triggers (list, get, create, PATCH/PUT, delete, bulk update and delete), the
 * subscriber that runs automatic ones on ticket events, the cron that walks the tickets for
 * time-based ones and ones applied to existing tickets, and the manual application (`/v2/tickets/{id}/triggerapply.json`, `/v2/tickets/triggerapply.json`).
 */
export const triggersModule = defineModule({
  name: 'triggers',
  resources: [triggersResource],
  routes: [applyTriggerRoute, applyTriggerToTicketsRoute],
  subscribers: [ticketTriggers],
  cron: { walks: runTicketWalks },
});
