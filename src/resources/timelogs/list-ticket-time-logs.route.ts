import { timeLogs } from '../../db/schema';
import { ticketChildrenRoute } from '../tickets/ticket-children';
import { timeLogsResource } from './timelogs.resource';

export const listTicketTimeLogsRoute = ticketChildrenRoute(timeLogsResource, timeLogs.ticketId, {
  path: 'timelogs.json',
  operationId: 'listTicketTimeLogs',
  summary: "A ticket's time logs, paginated",
  description:
    "The time logs of one ticket in pages, with the list's `filter`, `orderBy` and `includes` (by default in the order of their `date`): who spent how many seconds, when, and whether billable. A ticket the caller does not see, of another installation or deleted, is a 404. See docs/resources/timelogs.md.",
});
