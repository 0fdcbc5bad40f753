import { and, asc, eq, inArray } from 'drizzle-orm';
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
export function lockTickets(tx: Transaction, who: Actor, ids: readonly number[], withDeleted = false): Promise<LockedTicket[]> {
  return tx
    .select({ id: tickets.id, state: tickets.state, statusId: tickets.statusId, statusCode: ticketStatuses.code, customerId: tickets.customerId, inboxId: tickets.inboxId, mergedIntoId: tickets.mergedIntoId })
    .from(tickets)
    .innerJoin(ticketStatuses, eq(ticketStatuses.id, tickets.statusId))
    .where(and(tenantScope(tickets, who.installationId, withDeleted, 'write'), visibleTickets(who), inArray(tickets.id, [...ids])))
    .orderBy(asc(tickets.id))
    .for('update', { of: tickets });
}

/** The live ticket the caller may change, locked; 404 otherwise (another installation's too). */
export async function lockTicket(tx: Transaction, who: Actor, id: number, withDeleted = false): Promise<LockedTicket> {
  const [ticket] = await lockTickets(tx, who, [id], withDeleted);
  if (!ticket) throw ApiError.notFound('id', `ticket ${id} not found`);
  return ticket;
}
