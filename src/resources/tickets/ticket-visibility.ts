import { sql, type SQL } from 'drizzle-orm';
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
