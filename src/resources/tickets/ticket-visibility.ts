import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Actor } from '../../auth/principal';
import { tickets } from '../../db/schema';

/**
 * The tickets a caller sees: an owner or admin every ticket of the installation; an agent those
 * of the inboxes they work (with `restricted` access, only those assigned to them); a
 * collaborator those they follow. The system sees every ticket.
 */
export function visibleTickets(who: Actor): SQL | undefined {
  if (who.kind !== 'teammate' || who.role === 'owner' || who.role === 'admin') return undefined;
  if (who.role === 'agent') {
    return sql`EXISTS (SELECT 1 FROM inbox_users m WHERE m.inbox_id = ${tickets.inboxId} AND m.user_id = ${who.userId}
      AND (m.access = 'full' OR ${tickets.agentId} = ${who.userId}))`;
  }
  return sql`EXISTS (SELECT 1 FROM ticket_followers f WHERE f.ticket_id = ${tickets.id} AND f.user_id = ${who.userId})`;
}

/** The live tickets the caller sees (over `tickets`). */
export function liveVisibleTickets(who: Actor): SQL {
  return sql`${tickets.state} = 'active' AND ${visibleTickets(who) ?? sql`true`}`;
}

/** The scope of records a ticket owns (its thread entries, its history): those of the live tickets the caller sees. */
export function ofVisibleTicket(ticketId: PgColumn): (who: Actor) => SQL {
  return (who) =>
    sql`EXISTS (SELECT 1 FROM ${tickets} WHERE ${tickets.id} = ${ticketId} AND ${liveVisibleTickets(who)})`;
}
