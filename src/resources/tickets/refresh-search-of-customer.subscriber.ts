import type { Subscriber } from '../../events/subscriber';
import { refreshCustomerTickets } from './ticket-search';

/** A customer renamed or readdressed: their tickets' documents follow (a second or so after the write, by the drain). */
export const refreshSearchOfCustomer: Subscriber = {
  name: 'tickets.search',
  does: "rewrites the search documents of the customer's tickets (`docs/resources/search.md`)",
  on: [{ recordType: 'customers', kinds: ['updated'], changed: ['firstName', 'lastName', 'email'] }],
  async handle(event, { tx }) {
    await refreshCustomerTickets({ tx }, event.installationId, event.recordId);
  },
};
