import type { PgColumn } from 'drizzle-orm/pg-core';
import { childListRoute, type ResourceDeclaration } from '../../engine';
import { ticketsResource } from './tickets.resource';

/**
 * `GET /v2/tickets/{id}/<what>.json`: the records a ticket owns (its thread, its history, its
 * time logs) in pages apart from the ticket. A ticket the caller does not see is a 404.
 */
export function ticketChildrenRoute(
  child: ResourceDeclaration,
  ticketKey: PgColumn,
  route: { path: string; operationId: string; summary: string; description: string },
) {
  return childListRoute(ticketsResource, child, ticketKey, route);
}
