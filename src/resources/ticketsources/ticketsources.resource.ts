import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import { ticketSources, tickets } from '../../db/schema';
import { refuseWhen } from '../../db/refusal';
import { AUDIT_SET, defineResource, tenantScope } from '../../engine';
import { ApiError } from '../../http/errors';
import { displayOrderField, iconField, nameField, uniqueName } from '../../lib/vocabulary-fields';
import { includedUsers } from '../users/user-shape';

/**
 * The channel a ticket came through. The platform's channels (`isCustom: false`) may be renamed
 * and reordered but not deleted. The platform's clients wrap them as `ticketSource` and `ticketSources`.
 */
const platformChannel = (id: number) => `ticketsource ${id} is one of the platform's channels, which cannot be deleted`;

export const ticketSourcesResource = defineResource({
  type: 'ticketsources',
  singular: 'ticketSource',
  listKey: 'ticketSources',
  title: { one: 'TicketSource', many: 'TicketSources' },
  table: ticketSources,
  fields: {
    name: nameField(ticketSources.name),
    icon: iconField(ticketSources.icon),
    displayOrder: displayOrderField(ticketSources.displayOrder),
    isCustom: { column: ticketSources.isCustom, schema: z.boolean(), readOnly: true },
  },
  filter: [...AUDIT_SET, 'displayOrder', 'isCustom', 'name'],
  relations: { users: includedUsers() },
  constraints: uniqueName('ticket_sources_installation_name_key', 'ticketSource', 'a source'),
  access: { read: EVERYONE, write: ADMINS },
  examples: {
    create: { name: 'Trade show', icon: 'users' },
    update: { displayOrder: 2 },
  },
  usedBy: [{ type: 'tickets', table: tickets, column: tickets.sourceId, property: 'source' }],
  operations: ['list', 'get', 'create', 'update', 'delete'],
  async beforeDelete({ tx, who }, id) {
    const [row] = await tx
      .select({ isCustom: ticketSources.isCustom })
      .from(ticketSources)
      .where(and(tenantScope(ticketSources, who.installationId), eq(ticketSources.id, id)));
    if (row && !row.isCustom) throw ApiError.conflict('id', platformChannel(id));
  },
  planned: {
    beforeDelete: (who, id) => [
      refuseWhen(
        sql`EXISTS (SELECT 1 FROM ${ticketSources} WHERE ${and(tenantScope(ticketSources, who.installationId), eq(ticketSources.id, id))} AND NOT ${ticketSources.isCustom})`,
        409,
        'id',
        platformChannel(id),
      ),
    ],
  },
});
