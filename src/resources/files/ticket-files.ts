import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Actor } from '../../auth/principal';
import { files, tickets } from '../../db/schema';
import { recordScope } from '../../engine';
import { ticketsResource } from '../tickets/tickets.resource';

/** The ticket, when the caller may read it: 404 otherwise, another installation's as one they cannot see. */
export const readableTicket = (who: Actor, ticketId: number): SQL =>
  sql`EXISTS (SELECT 1 FROM ${tickets} WHERE ${tickets.id} = ${ticketId} AND ${recordScope(ticketsResource, who)})`;

/**
 * The files a ticket's thread offers for download: live, confirmed files of the installation
 * attached to a live entry of that ticket. One rule for the single download and the zip of all;
 * the caller's right to read the ticket is `readableTicket`.
 */
export const attachedToTicket = (who: Actor, ticketId: number): SQL =>
  and(
    eq(files.installationId, who.installationId),
    eq(files.state, 'active'),
    sql`${files.confirmedAt} IS NOT NULL`,
    sql`EXISTS (SELECT 1 FROM ticket_message_files tf JOIN ticket_messages m ON m.id = tf.message_id
                 WHERE tf.file_id = ${files.id} AND m.ticket_id = ${ticketId} AND m.state = 'active')`,
  )!;
