import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { remember } from '../../db/refusal';
import type { Actor } from '../../auth/principal';
import type { Transaction } from '../../db/client';
import { tickets, ticketStatuses } from '../../db/schema';
import { tenantScope } from '../../engine';
import { ApiError } from '../../http/errors';
import { visibleTickets } from './ticket-visibility';

export interface LockedTicket {
  id: number;
  state: 'active' | 'deleted';
  statusId: number;
  statusCode: string;
  customerId: number;
  inboxId: number;
  mergedIntoId: number | null;
}

/**
 * The tickets the caller may change among `ids` (the tickets resource's scope), locked for the write in id order (so two writes
 * over the same tickets never deadlock); deleted ones too when asked.
 */
export async function lockTickets(
  tx: Transaction,
  who: Actor,
  ids: readonly number[],
  withDeleted = false,
): Promise<LockedTicket[]> {
  // The status's code by a subquery, not a join: when a concurrent write changed the status while
  // this waited for the lock, Postgres re-checks the newest row against the joined row it read
  // before, the old status, and would drop the ticket (a 404 for a ticket that is there).
  const rows = await tx
    .select({
      id: tickets.id,
      state: tickets.state,
      statusId: tickets.statusId,
      customerId: tickets.customerId,
      inboxId: tickets.inboxId,
      mergedIntoId: tickets.mergedIntoId,
      statusCode: sql<string>`(SELECT ${ticketStatuses.code} FROM ${ticketStatuses} WHERE ${ticketStatuses.id} = ${tickets.statusId})`,
    })
    .from(tickets)
    .where(
      and(
        tenantScope(tickets, who.installationId, withDeleted, 'write'),
        visibleTickets(who),
        inArray(tickets.id, [...ids]),
      ),
    )
    .orderBy(asc(tickets.id))
    .for('update');
  return rows as LockedTicket[];
}

/** The live ticket the caller may change, locked; 404 otherwise (another installation's too). */
export async function lockTicket(tx: Transaction, who: Actor, id: number, withDeleted = false): Promise<LockedTicket> {
  const [ticket] = await lockTickets(tx, who, [id], withDeleted);
  if (!ticket) throw ApiError.notFound('id', `ticket ${id} not found`);
  return ticket;
}

/**
 * `lockTicket` as the first statement of a batch: the ticket the caller may change locked, a 404
 * stopping the batch otherwise; `remembering` hands on a value of the locked row (SQL over
 * `locked`, e.g. its status) under a name (`remember`).
 */
export function lockTicketStatement(
  who: Actor,
  id: number,
  withDeleted = false,
  remembering?: { name: string; value: SQL },
): SQL {
  const writable = and(
    tenantScope(tickets, who.installationId, withDeleted, 'write'),
    visibleTickets(who),
    eq(tickets.id, id),
  )!;
  const kept = remembering ? remember(remembering.name, remembering.value) : sql`'locked'`;
  return sql`WITH locked AS (SELECT ${tickets.statusId} AS status_id, ${tickets.state} AS state, ${tickets.customerId} AS customer_id FROM ${tickets} WHERE ${writable} FOR UPDATE)
    SELECT coalesce((SELECT ${kept} FROM locked), desk_refuse(404, 'id', ${`ticket ${id} not found`}::text)::text)`;
}
