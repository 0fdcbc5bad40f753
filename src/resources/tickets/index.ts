import { defineModule } from '../../modules/module';
import { createTicketMessageRoute } from './create-ticket-message.route';
import { linkTicketTaskRoute } from './link-ticket-task.route';
import { listTicketChangesRoute } from './list-ticket-changes.route';
import { listTicketHistoryRoute } from './list-ticket-history.route';
import { listTicketMessagesRoute } from './list-ticket-messages.route';
import { markTicketSpamRoute } from './mark-ticket-spam.route';
import { mergeTicketsRoute } from './merge-tickets.route';
import { messagesResource } from './messages.resource';
import { recordTicketActivities } from './record-ticket-activities.subscriber';
import { recordTicketTimings } from './record-ticket-timings.subscriber';
import { refreshSearchOfCustomer } from './refresh-search-of-customer.subscriber';
import { restoreTicketRoute } from './restore-ticket.route';
import { searchTicketsRoute } from './search-tickets.route';
import { ticketActivitiesResource } from './ticket-activities.resource';
import { ticketsResource } from './tickets.resource';
import { unlinkTicketTaskRoute } from './unlink-ticket-task.route';

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
    createTicketMessageRoute,
    listTicketMessagesRoute,
    listTicketHistoryRoute,
    restoreTicketRoute,
    markTicketSpamRoute,
    mergeTicketsRoute,
    listTicketChangesRoute,
    searchTicketsRoute,
    linkTicketTaskRoute,
    unlinkTicketTaskRoute,
  ],
  subscribers: [recordTicketActivities, recordTicketTimings, refreshSearchOfCustomer],
});
