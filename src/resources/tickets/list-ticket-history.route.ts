import { ticketActivities } from '../../db/schema';
import { ticketActivitiesResource } from './ticket-activities.resource';
import { ticketChildrenRoute } from './ticket-children';

export const listTicketHistoryRoute = ticketChildrenRoute(ticketActivitiesResource, ticketActivities.ticketId, {
  path: 'activities.json',
  operationId: 'listTicketHistory',
  summary: "A ticket's history, paginated",
  description:
    "The ticket's history in pages: one line per change to the ticket and its thread (status, assignment, replies, merges, triggers, SLA warnings, ...), with who made it, when, and what it was before and after, in the order of the changes. Lines are written from the write events just after each write, so a read right after one may miss its last lines for about a second. A ticket the caller does not see, of another installation or deleted, is a 404. See docs/resources/ticketactivities.md.",
});
