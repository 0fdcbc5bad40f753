import { and, eq, ne, sql } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import { ticketTypeInboxes, ticketTypes } from '../../db/schema';
import { AUDIT_SET, defineResource, manyToMany, updateRecords, type WriteContext } from '../../engine';
import { displayOrderField, nameField, uniqueName } from '../../lib/vocabulary-fields';
import { inboxShape } from '../inboxes/inbox-shape';
import { includedUsers } from '../users/user-shape';

/**
 * A type about to become the default takes the flag from the others in the same transaction;
 * writes making a default in one installation take turns, so the later one wins.
 */
async function clearOtherDefault({ tx, who }: WriteContext, id: number | undefined): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('ticket_types_default'), ${who.installationId}::int)`);
  const others = and(eq(ticketTypes.installationId, who.installationId), eq(ticketTypes.state, 'active'), eq(ticketTypes.isDefault, true), id === undefined ? undefined : ne(ticketTypes.id, id))!;
  await updateRecords(tx, who, { table: ticketTypes, type: 'tickettypes', where: others }, { isDefault: false }, { default: ticketTypes.isDefault });
}

/** What kind of request a ticket is (a question, a problem...), optionally limited to some inboxes. */
export const ticketTypesResource = defineResource({
  type: 'tickettypes',
  singular: 'tickettype',
  title: { one: 'TicketType', many: 'TicketTypes' },
  table: ticketTypes,
  fields: {
    name: nameField(ticketTypes.name),
    displayOrder: displayOrderField(ticketTypes.displayOrder),
    default: { column: ticketTypes.isDefault, schema: z.boolean().meta({ description: 'the type of new tickets that name none; one per installation' }) },
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
    ticket_types_one_default: { source: 'tickettype.default', detail: 'another type became the default at the same moment; try again' },
  },
  access: { read: EVERYONE, write: ADMINS },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  async beforeWrite(context, record, id) {
    if (record.default === true) await clearOtherDefault(context, id);
  },
});
