import { z } from 'zod';
import { EVERYONE } from '../../auth/access';
import { inboxes, ticketActivities, ticketMessages, tickets, ticketStatuses, users } from '../../db/schema';
import { AUDIT_SET, defineResource, referenceField, type WritableField } from '../../engine';
import { includedUsers } from '../users/user-shape';
import { ofVisibleTicket } from './ticket-visibility';

const ref = (column: Parameters<typeof referenceField>[0], target: Parameters<typeof referenceField>[1]) =>
  referenceField(column, target, { readOnly: true });

/** A line of a ticket's history; written only by the `tickets.activities` subscriber. */
export const activityFields: Record<string, WritableField> = {
  eventType: {
    column: ticketActivities.eventType,
    schema: z.string().meta({
      description: '`ticket.status`, `ticket.assigned`, `ticket.agent.reply`, ... (docs/resources/ticketactivities.md)',
    }),
    readOnly: true,
  },
  ticket: referenceField(
    ticketActivities.ticketId,
    { table: tickets, type: 'tickets' },
    { required: true, readOnly: true },
  ),
  inbox: ref(ticketActivities.inboxId, { table: inboxes, type: 'inboxes' }),
  oldInbox: ref(ticketActivities.oldInboxId, { table: inboxes, type: 'inboxes' }),
  status: ref(ticketActivities.statusId, { table: ticketStatuses, type: 'ticketstatuses' }),
  targetAgent: ref(ticketActivities.targetAgentId, { table: users, type: 'users' }),
  message: ref(ticketActivities.messageId, { table: ticketMessages, type: 'messages' }),
  otherTicket: ref(ticketActivities.otherTicketId, { table: tickets, type: 'tickets' }),
  actorSystem: {
    column: ticketActivities.actorSystem,
    schema: z
      .string()
      .nullable()
      .meta({ description: 'the part of the system that made the change (`createdBy` null), as `cron`' }),
    readOnly: true,
  },
  changes: {
    column: ticketActivities.changes,
    schema: z
      .record(z.string(), z.unknown())
      .meta({ description: 'what changed: `{"status": {"before": ref, "after": ref}}`, `{"tag": ref}`' }),
    readOnly: true,
  },
};

/**
 * A ticket's history, built from the write events: `GET /v2/ticketactivities.json`, per ticket
 * `GET /v2/tickets/{id}/activities.json`, and `includes=ticketactivities` on a ticket. Read only.
 */
export const ticketActivitiesResource = defineResource({
  type: 'ticketactivities',
  singular: 'ticketActivity',
  title: { one: 'TicketActivity', many: 'TicketActivities', group: 'Tickets' },
  table: ticketActivities,
  fields: activityFields,
  filter: [...AUDIT_SET, 'eventType', 'inbox', 'message', 'status', 'targetAgent', 'ticket'],
  relations: { users: includedUsers() },
  access: { read: EVERYONE, write: EVERYONE },
  operations: ['list', 'get'],
  scope: ofVisibleTicket(ticketActivities.ticketId),
});
