import { ticketMessages } from '../../db/schema';
import { messagesResource } from './messages.resource';
import { ticketChildrenRoute } from './ticket-children';

/** `GET /v2/tickets/{id}/messages.json`: the thread in pages (a ticket of thousands of entries reads page by page). */
export const listTicketMessagesRoute = ticketChildrenRoute(messagesResource, ticketMessages.ticketId, {
  path: 'messages.json',
  operationId: 'listTicketMessages',
  summary: "A ticket's thread, paginated",
  description:
    "The ticket's thread entries (replies, the customer's messages, internal notes) in pages apart from the ticket, with the list's `filter`, `orderBy` and `includes`; by default in the order they were written, so a merged thread reads in time order. A ticket the caller does not see, of another installation or deleted, is a 404. See docs/resources/messages.md.",
});
