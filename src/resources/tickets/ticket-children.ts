import { and, eq } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { EVERYONE } from '../../auth/access';
import { tickets } from '../../db/schema';
import { listBody, recordScope, schemasOf, type ResourceDeclaration } from '../../engine';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { ticketsResource } from './tickets.resource';

/**
 * `GET /v2/tickets/{id}/<what>.json`: the records a ticket owns (its thread, its history) in
 * pages apart from the ticket, with their list's filter, order and includes. A ticket the caller
 * does not see is a 404.
 */
export function ticketChildrenRoute(child: ResourceDeclaration, ticketKey: PgColumn, route: { path: string; operationId: string; summary: string }) {
  const s = schemasOf(child);
  return defineRoute({
    method: 'get', path: `/v2/tickets/{id}/${route.path}`, tag: 'Tickets', operationId: route.operationId, roles: EVERYONE,
    summary: route.summary,
    request: { params: idParams, query: s.listQuery },
    responses: { 200: jsonResponse(`a page of the ticket's ${child.type}`, s.many) },
  }, async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    const [ticket] = await c.var.db.http.select({ id: tickets.id }).from(tickets).where(and(recordScope(ticketsResource, who), eq(tickets.id, id)));
    if (!ticket) throw ApiError.notFound('id', `ticket ${id} not found`);
    return c.json(await listBody(c, child, who, c.req.valid('query'), eq(ticketKey, id)), 200);
  });
}
