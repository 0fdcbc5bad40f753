import { defineModule } from '../../modules/module';
import { getTimeLogTotalsRoute } from './get-time-log-totals.route';
import { listTicketTimeLogsRoute } from './list-ticket-time-logs.route';
import { timeLogsResource } from './timelogs.resource';

/**
 * `/v2/timelogs...` and `/v2/tickets/{id}/timelogs.json`: time spent on tickets (the generic
 * routes; a teammate logs their own, an owner or admin anyone's), and the sums over a filter.
 */
export const timeLogsModule = defineModule({
  name: 'timelogs',
  resources: [timeLogsResource],
  routes: [listTicketTimeLogsRoute, getTimeLogTotalsRoute],
});
