import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import { ticketTypeInboxes, ticketTypes, tickets } from '../../db/schema';
import { AUDIT_SET, defineResource, manyToMany } from '../../engine';
import { displayOrderField, nameField, uniqueName } from '../../lib/vocabulary-fields';
import { inboxShape } from '../inboxes/inbox-shape';
import { includedUsers } from '../users/user-shape';

/** What kind of request a ticket is (a question, a problem...), optionally limited to some inboxes. */
export const ticketTypesResource = defineResource({
  type: 'tickettypes',
  singular: 'tickettype',
  title: { one: 'TicketType', many: 'TicketTypes' },
  table: ticketTypes,
  fields: {
    name: nameField(ticketTypes.name),
    displayOrder: displayOrderField(ticketTypes.displayOrder),
    default: {
      column: ticketTypes.isDefault,
      schema: z.boolean().meta({ description: 'the type of new tickets that name none; one per installation' }),
    },
    enabledForFutureInboxes: { column: ticketTypes.enabledForFutureInboxes, schema: z.boolean() },
  },
  filter: [...AUDIT_SET, 'default', 'displayOrder', 'enabledForFutureInboxes', 'name'],
  relations: {
    inboxes: manyToMany({
      name: 'inboxes',
      target: inboxShape,
      through: ticketTypeInboxes,
      parentKey: ticketTypeInboxes.ticketTypeId,
      targetKey: ticketTypeInboxes.inboxId,
    }),
    users: includedUsers(),
  },
  constraints: {
    ...uniqueName('ticket_types_installation_name_key', 'tickettype', 'a type'),
    ticket_types_one_default: {
      source: 'tickettype.default',
      detail: 'another type became the default at the same moment; try again',
    },
  },
  access: { read: EVERYONE, write: ADMINS },
  examples: {
    create: { name: 'Refund', enabledForFutureInboxes: true },
    update: { displayOrder: 3 },
  },
  usedBy: [{ type: 'tickets', table: tickets, column: tickets.typeId, property: 'type' }],
  operations: ['list', 'get', 'create', 'update', 'delete'],
  defaultFlag: 'default',
});
