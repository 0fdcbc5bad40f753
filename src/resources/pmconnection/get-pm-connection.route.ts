import { and, eq } from 'drizzle-orm';
import { AGENTS } from '../../auth/access';
import { pmConnections } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { pmConnectionBodySchema, pmConnectionJson, pmConnectionRecord } from './pmconnection-record';

/** `GET /v2/pmconnection.json`: the connection, never its token. */
export const getPmConnectionRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/pmconnection.json',
    tag: 'PmConnection',
    operationId: 'getPmConnection',
    roles: AGENTS,
    summary: 'The project-management connection',
    description:
      "The installation's connection to the project-management product that company sync and ticket task links use: its `baseUrl`, whether a token is set (`hasToken`; the token itself is never answered) and when a company was last synchronised. None configured is a 404. See docs/resources/pmsync.md.",
    responses: {
      200: jsonResponse('the connection, without its token', pmConnectionBodySchema),
      404: errorResponse('no connection is configured'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const [row] = await c.var.db.http
      .select({ record: pmConnectionJson })
      .from(pmConnections)
      .where(and(eq(pmConnections.installationId, who.installationId), eq(pmConnections.state, 'active')));
    if (!row) throw ApiError.notFound('pmconnection', 'no project-management connection is configured');
    return c.json({ pmconnection: pmConnectionRecord(row.record), included: {} }, 200);
  },
);
