import { defineModule } from '../../modules/module';
import { checkSlaClocks } from './sla-tickets';
import { slasResource } from './slas.resource';
import { ticketSlaClock } from './ticket-sla-clock.subscriber';

/**
 * `/v2/slas...`: service-level policies (list, get, create, PATCH/PUT, delete), the clocks that
 * keep each ticket's due times and target states from its events, and the cron that sees them
 * fall due.
 */
export const slasModule = defineModule({
  name: 'slas',
  resources: [slasResource],
  subscribers: [ticketSlaClock],
  cron: { clocks: checkSlaClocks },
});
