import { defineModule } from '../../modules/module';
import { timeLogs } from '../../db/schema';
import { ticketChildrenRoute } from '../tickets/ticket-children';
import { timeLogsResource } from './timelogs.resource';
import { timeLogTotalsRoute } from './totals';

const ticketTimeLogsRoute = ticketChildrenRoute(timeLogsResource, timeLogs.ticketId, {
  path: 'timelogs.json', operationId: 'listTicketTimeLogs', summary: "A ticket's time logs, paginated",
});

/**
 * `/v2/timelogs...` and `/v2/tickets/{id}/timelogs.json`: time spent on tickets (the generic
 * routes; a teammate logs their own, an owner or admin anyone's), and the sums over a filter.
 */
export const timeLogsModule = defineModule({ name: 'timelogs', resources: [timeLogsResource], routes: [ticketTimeLogsRoute, timeLogTotalsRoute] });
