import { ADMINS, EVERYONE } from '../../auth/access';
import { ticketPriorities, tickets } from '../../db/schema';
import { AUDIT_SET, defineResource } from '../../engine';
import { colorField, displayOrderField, nameField, uniqueName } from '../../lib/vocabulary-fields';
import { includedUsers } from '../users/user-shape';

/** How urgent a ticket is. A new installation starts with Low, Medium, High and Urgent. */
export const ticketPrioritiesResource = defineResource({
  type: 'ticketpriorities',
  singular: 'ticketpriority',
  title: { one: 'TicketPriority', many: 'TicketPriorities' },
  table: ticketPriorities,
  fields: {
    name: nameField(ticketPriorities.name),
    color: colorField(ticketPriorities.color),
    displayOrder: displayOrderField(ticketPriorities.displayOrder),
  },
  filter: [...AUDIT_SET, 'color', 'displayOrder', 'name'],
  relations: { users: includedUsers() },
  constraints: uniqueName('ticket_priorities_installation_name_key', 'ticketpriority', 'a priority'),
  access: { read: EVERYONE, write: ADMINS },
  examples: {
    create: { name: 'Critical', color: '#d93f0b', displayOrder: 1 },
    update: { color: '#b60205' },
  },
  usedBy: [{ type: 'tickets', table: tickets, column: tickets.priorityId, property: 'priority' }],
  operations: ['list', 'get', 'create', 'update', 'delete'],
});
