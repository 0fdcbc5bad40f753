import { and, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import { inboxes, TICKET_STATUS_CODES, ticketStatuses, tickets } from '../../db/schema';
import { AUDIT_SET, defineResource } from '../../engine';
import { ApiError } from '../../http/errors';
import { colorField, displayOrderField, iconField, nameField, uniqueName } from '../../lib/vocabulary-fields';
import { includedUsers } from '../users/user-shape';

const NAME_TAKEN = 'a status with this name already exists';

/** The platform's status of this name, ignoring case. */
const sharedNamed = (name: string) =>
  and(isNull(ticketStatuses.installationId), sql`lower(${ticketStatuses.name}) = lower(${name})`);

/**
 * The platform's six statuses (ids 1, 3 to 7) are shared rows every installation reads and none
 * changes; a team adds its own (`isCustom: true`), each with the `code` it behaves as.
 */
export const ticketStatusesResource = defineResource({
  type: 'ticketstatuses',
  singular: 'ticketstatus',
  title: { one: 'TicketStatus', many: 'TicketStatuses' },
  table: ticketStatuses,
  fields: {
    name: nameField(ticketStatuses.name),
    code: {
      column: ticketStatuses.code,
      schema: z.enum(TICKET_STATUS_CODES).meta({
        description:
          'what tickets in this status are to the system: open (`active`), waiting, on hold, solved, closed or spam; `active` when not sent',
      }),
    },
    color: colorField(ticketStatuses.color),
    icon: iconField(ticketStatuses.icon),
    displayOrder: displayOrderField(ticketStatuses.displayOrder),
    isCustom: { column: ticketStatuses.isCustom, schema: z.boolean(), readOnly: true },
  },
  filter: [...AUDIT_SET, 'code', 'color', 'displayOrder', 'isCustom', 'name'],
  relations: { users: includedUsers() },
  constraints: uniqueName('ticket_statuses_installation_name_key', 'ticketstatus', 'a status'),
  access: { read: EVERYONE, write: ADMINS },
  examples: {
    create: { name: 'Waiting on supplier', code: 'waiting', color: '#fbca04' },
    update: { color: '#f9d0c4' },
  },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  usedBy: [
    { type: 'inboxes', table: inboxes, column: inboxes.ticketStatusId, property: 'ticketstatus' },
    { type: 'tickets', table: tickets, column: tickets.statusId, property: 'status' },
  ],
  sharedRows: "the platform's statuses",
  // The unique index covers an installation's own names; these are the shared ones.
  async beforeWrite(context, record) {
    if (typeof record.name !== 'string') return;
    const [shared] = await context.tx
      .select({ id: ticketStatuses.id })
      .from(ticketStatuses)
      .where(sharedNamed(record.name));
    if (shared) throw ApiError.conflict('ticketstatus.name', `${NAME_TAKEN} (ticketstatus ${shared.id})`);
  },
  planned: {
    first: (_db, _who, record) =>
      typeof record.name !== 'string'
        ? []
        : [
            sql`SELECT desk_refuse(409, 'ticketstatus.name', ${`${NAME_TAKEN} (ticketstatus `}::text || ${ticketStatuses.id} || ')') FROM ${ticketStatuses} WHERE ${sharedNamed(record.name)} LIMIT 1`,
          ],
  },
});
