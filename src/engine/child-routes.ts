import { and, eq } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { ApiError } from '../http/errors';
import { idParams } from '../http/params';
import { jsonResponse } from '../http/responses';
import { defineRoute } from '../http/route';
import { listBody } from './read';
import { schemasOf } from './schemas';
import { recordScope } from './scope';
import type { ResourceDeclaration } from './types';

/**
 * `GET /v2/<parent>/{id}/<path>`: the records a parent owns (a ticket's thread, an endpoint's
 * deliveries) in pages apart from it, with their list's filter, order and includes. A parent the
 * caller does not see is a 404; who may call is who may read the parent.
 */
export function childListRoute(
  parent: ResourceDeclaration,
  child: ResourceDeclaration,
  parentKey: PgColumn,
  route: { path: string; operationId: string; summary: string; description: string },
) {
  const s = schemasOf(child);
  return defineRoute(
    {
      method: 'get',
      path: `/v2/${parent.path ?? parent.type}/{id}/${route.path}`,
      tag: parent.title.group ?? parent.title.many,
      operationId: route.operationId,
      roles: parent.access.read,
      summary: route.summary,
      description: route.description,
      request: { params: idParams, query: s.listQuery },
      responses: { 200: jsonResponse(`a page of the ${parent.singular}'s ${child.type}`, s.many) },
    },
    async (c) => {
      const who = c.var.principal;
      const { id } = c.req.valid('param');
      const [found] = await c.var.db.http
        .select({ id: parent.table.id })
        .from(parent.table as PgTable)
        .where(and(recordScope(parent, who), eq(parent.table.id, id)));
      if (!found) throw ApiError.notFound('id', `${parent.singular} ${id} not found`);
      return c.json(await listBody(c, child, who, c.req.valid('query'), eq(parentKey, id)), 200);
    },
  );
}
