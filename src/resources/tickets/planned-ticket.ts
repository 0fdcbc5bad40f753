import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { Actor } from '../../auth/principal';
import { recalled, recalledIfAny, refuseWhen, remember } from '../../db/refusal';
import { customers, ticketReads, tickets, users } from '../../db/schema';
import { tenantScope, type ResourceDeclaration } from '../../engine';
import { ApiError } from '../../http/errors';
import { prepareCustomFieldValues, requireFieldsToResolveStatement } from '../customfields/ticket-values';
import { addCustomerStatement, joinCompaniesStatement } from '../customers/new-customer';
import { customerOfEmail, type customerInput } from './ticket-customer';
import { openingEntry, threadEntryStatements } from './thread-entry';
import { finishSplitStatements, readSplitSource, splitSourceStatement } from './split';
import { refreshSearchStatement } from './ticket-search';
import { visibleTickets } from './ticket-visibility';

/** The names the batch hands values on by. */
const CUSTOMER = 'ticket_customer';
const NEW_CUSTOMER = 'ticket_new_customer';
const STATUS_BEFORE = 'ticket_status_before';
const OPENING = 'ticket_opening';

/**
 * The tickets' write hooks (`prepareTicket`, `finishTicket`) for a create or update sent as one
 * batch (`planned-write.ts`): what they look up in the transaction, the statements decide. Custom
 * field values are checked against their fields read first, and a split (`fromThreadId`) reads
 * the entry it moves first: two exchanges.
 */
export const plannedTicketHooks: NonNullable<ResourceDeclaration['planned']> = {
  async before(who, record, id, read) {
    // a split: its entry read first, two exchanges
    if (record.fromThreadId !== undefined && id === undefined) await readSplitSource(read, who, record);
    // the values checked against their fields, read first: two exchanges
    if (record.customfields !== undefined) {
      record.customfields = await prepareCustomFieldValues(
        read,
        who,
        record.customfields as Parameters<typeof prepareCustomFieldValues>[2],
        { id, inboxId: record.inbox as number | undefined },
        'ticket.customfields',
      );
    }
    if (id === undefined) {
      if (record.customer === undefined)
        throw ApiError.invalid('ticket.customer', 'must be set: {"id": ...} or {"email": ...}');
      if (record.files !== undefined && !(typeof record.message === 'string' && record.message.trim() !== '')) {
        throw ApiError.invalid('ticket.files', 'files are attached to the first message: send `message` too');
      }
      // the inbox's status for new tickets, else active; the installation's default type
      record.status ??= sql`coalesce((SELECT ticket_status_id FROM inboxes WHERE id = ${record.inbox as number}), 1)`;
    }
    return true;
  },

  first(_db, who, record, id) {
    const statements: SQL[] = [];
    if (id === undefined && typeof record.fromThreadId === 'number')
      statements.push(splitSourceStatement(who, record.fromThreadId));
    if (record.customer !== undefined) {
      statements.push(...customerStatements(who, record.customer as z.output<typeof customerInput>));
      record.customer = recalled(CUSTOMER);
    }
    if (id === undefined && record.type === undefined) {
      record.type = sql`(SELECT id FROM ticket_types WHERE installation_id = ${who.installationId} AND is_default AND state = 'active' LIMIT 1)`;
    }
    statements.push(...seatedAgent(who, record));
    // an update's status before it: a status sent again is no move
    if (id !== undefined && record.status !== undefined) {
      statements.push(
        sql`SELECT ${remember(STATUS_BEFORE, sql`coalesce((SELECT status_id FROM tickets WHERE id = ${id} AND installation_id = ${who.installationId}), 0)`)}`,
      );
    }
    return statements;
  },

  after(db, who, record, id, created) {
    const statements: SQL[] = [];
    if (created && typeof record.fromThreadId === 'number')
      statements.push(...finishSplitStatements(db, who, record.fromThreadId, id));
    // a customer the body named by email and the batch made joins the companies of its domain, on create or update
    if (record.customer !== undefined) statements.push(newCustomerJoinsCompanies(who));
    const opening = created ? openingEntry(record, id, record.customer as SQL) : undefined;
    if (opening) {
      statements.push(...threadEntryStatements(who, opening, OPENING));
    } else if (created || record.subject !== undefined || record.customer !== undefined) {
      statements.push(refreshSearchStatement(sql`t.id = ${id}`));
    }
    if (typeof record.isRead === 'boolean' && who.kind === 'teammate') {
      statements.push(
        record.isRead
          ? sql`INSERT INTO ${ticketReads} (installation_id, ticket_id, user_id) VALUES (${who.installationId}, ${id}, ${who.userId}) ON CONFLICT (ticket_id, user_id) DO UPDATE SET read_at = now()`
          : sql`DELETE FROM ${ticketReads} WHERE ${ticketReads.ticketId} = ${id} AND ${ticketReads.userId} = ${who.userId}`,
      );
    }
    if (record.status !== undefined) {
      statements.push(
        requireFieldsToResolveStatement(
          who,
          created ? sql`t.id = ${id}` : sql`t.id = ${id} AND t.status_id <> ${recalled(STATUS_BEFORE)}`,
          'ticket.status',
        ),
      );
    }
    statements.push(...stillVisible(who, sql`${tickets.id} = ${id}`));
    return statements;
  },

  bulkFirst: (_db, who, record) => seatedAgent(who, record),

  // what `checkBulkUpdate` holds the changed tickets to
  bulkAfter(_db, who, record, ids) {
    return [
      ...stillVisible(who, sql`${tickets.id} IN ${ids}`),
      ...(record.status !== undefined
        ? [requireFieldsToResolveStatement(who, sql`t.id IN ${ids}`, 'ticket.status')]
        : []),
      ...(record.subject !== undefined ? [refreshSearchStatement(sql`t.id IN ${ids}`)] : []),
    ];
  },
};

/** After `customerStatements`: the customer they made, if any, joins the companies of its domain. */
export const newCustomerJoinsCompanies = (who: Actor): SQL => joinCompaniesStatement(who, recalled(NEW_CUSTOMER));

/** A ticket is assigned to a teammate with a seat: a collaborator is a 400 (`requireSeatedAgent`). */
function seatedAgent(who: Actor, record: Record<string, unknown>): SQL[] {
  if (typeof record.agent !== 'number') return [];
  return [
    refuseWhen(
      sql`EXISTS (SELECT 1 FROM ${users} WHERE ${users.id} = ${record.agent} AND ${users.installationId} = ${who.installationId} AND ${users.role} = 'collaborator')`,
      400,
      'ticket.agent',
      'a collaborator has no seat: a ticket is assigned to an owner, admin or agent',
    ),
  ];
}

/** An agent cannot put a ticket where they would not see it (`requireStillVisible`): a 403 when one of the `tickets` it wrote left their sight. */
function stillVisible(who: Actor, written: SQL): SQL[] {
  const sight = visibleTickets(who);
  if (!sight) return [];
  return [
    refuseWhen(
      sql`EXISTS (SELECT 1 FROM ${tickets} WHERE ${written} AND NOT (${sight}))`,
      403,
      '',
      'the ticket would leave what you see: put it in an inbox you work (assigned to you, where your access is restricted)',
    ),
  ];
}

/**
 * `resolveCustomer` as statements: the customer a body names by id checked (and its email, when
 * sent beside it), or the one an address names found, else made with its contact and events; its
 * id handed on (`CUSTOMER`), and a customer made here (`NEW_CUSTOMER`, else 0) joined to the
 * companies of its domain once the ticket is written (`newCustomerJoinsCompanies`).
 */
export function customerStatements(who: Actor, input: z.output<typeof customerInput>): SQL[] {
  if (typeof input === 'number' || 'id' in input) {
    const id = typeof input === 'number' ? input : input.id;
    const email = typeof input === 'number' ? undefined : input.email;
    return [
      refuseWhen(
        sql`NOT EXISTS (SELECT 1 FROM ${customers} WHERE ${and(tenantScope(customers, who.installationId), eq(customers.id, id))})`,
        400,
        'ticket.customer',
        `no customer ${id} here`,
      ),
      ...(email === undefined
        ? []
        : [
            refuseWhen(
              sql`${customerOfEmail(who.installationId, email)} IS DISTINCT FROM ${id}`,
              400,
              'ticket.customer.email',
              `${email} is not an email of customer ${id}`,
            ),
          ]),
      sql`SELECT ${remember(CUSTOMER, sql`${id}::int`)}, ${remember(NEW_CUSTOMER, sql`0`)}`,
    ];
  }
  const found = customerOfEmail(who.installationId, input.email);
  return [
    sql`SELECT ${remember(CUSTOMER, sql`coalesce(${found}, 0)`)}`,
    addCustomerStatement(
      who,
      { ...input, addMethod: 'ticket' },
      sql`${recalled(CUSTOMER)} = 0`,
      sql`${remember(CUSTOMER, sql`id`)}, ${remember(NEW_CUSTOMER, sql`id`)}`,
    ),
    sql`SELECT ${remember(NEW_CUSTOMER, sql`coalesce(${recalledIfAny(NEW_CUSTOMER)}, 0)`)}`,
  ];
}
