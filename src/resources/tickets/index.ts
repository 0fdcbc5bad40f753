import { defineModule } from '../../modules/module';
import { ticketActivities } from '../../db/schema';
import { ticketChangesRoute } from './changes-feed';
import { mergeTicketsRoute } from './merge';
import { messagesResource } from './messages.resource';
import { recordTicketActivities } from './record-activities';
import { restoreTicketRoute } from './restore';
import { markSpamRoute } from './spam';
import { createThreadEntryRoute, threadRoute } from './thread';
import { ticketActivitiesResource } from './ticket-activities.resource';
import { ticketChildrenRoute } from './ticket-children';
import { ticketsResource } from './tickets.resource';
import { refreshSearchOfCustomer } from './ticket-search';
import { recordTicketTimings } from './ticket-timings';
import { searchTicketsRoute } from './search';
import { linkTaskRoute, unlinkTaskRoute } from './task-links';

const activitiesRoute = ticketChildrenRoute(ticketActivitiesResource, ticketActivities.ticketId, {
  path: 'activities.json',
  operationId: 'listTicketHistory',
  summary: "A ticket's history, paginated",
  description:
    "The ticket's history in pages: one line per change to the ticket and its thread (status, assignment, replies, merges, triggers, SLA warnings, ...), with who made it, when, and what it was before and after, in the order of the changes. Lines are written from the write events just after each write, so a read right after one may miss its last lines for about a second. A ticket the caller does not see, of another installation or deleted, is a 404. See docs/resources/ticketactivities.md.",
});

/**
 * `/v2/tickets...`, `/v2/messages...` and `/v2/ticketactivities...`: tickets (the generic routes;
 * the first message becomes the first thread entry), their threads (replies and notes, paginated
 * apart from the ticket), thread entries read on their own, each ticket's history (written from
 * the write events), and the special operations: restore, spam, merge (split is a create with
 * `fromThreadId`), linking project-management tasks.
 */
export const ticketsModule = defineModule({
  name: 'tickets',
  resources: [ticketsResource, messagesResource, ticketActivitiesResource],
  routes: [
    createThreadEntryRoute,
    threadRoute,
    activitiesRoute,
    restoreTicketRoute,
    markSpamRoute,
    mergeTicketsRoute,
    ticketChangesRoute,
    searchTicketsRoute,
    linkTaskRoute,
    unlinkTaskRoute,
  ],
  subscribers: [recordTicketActivities, recordTicketTimings, refreshSearchOfCustomer],
});
