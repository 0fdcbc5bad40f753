import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { EVERYONE } from '../../auth/access';
import { tickets } from '../../db/schema';
import { isoTime, recordScope } from '../../engine';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { ticketsResource } from '../tickets/tickets.resource';
import { surveyLink } from './survey-token';

const teammateSurveySchema = z
  .object({
    happinesssurvey: z
      .object({ id: z.number().int(), url: z.string(), sentAt: z.string(), expiresAt: z.string() })
      .nullable(),
  })
  .meta({ id: 'TicketHappinessSurvey' });

/** `GET /v2/tickets/{id}/happinesssurvey.json`: the ticket's latest survey and its link, for teammates who may see the ticket. */
export const getTicketHappinessSurveyRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/tickets/{id}/happinesssurvey.json',
    tag: 'HappinessRatings',
    operationId: 'getTicketHappinessSurvey',
    roles: EVERYONE,
    summary: "A ticket's latest satisfaction survey and its link",
    description:
      "The latest satisfaction survey sent with the ticket's solving reply: its id, the link the customer answers at, when it was sent and when it closes; `null` when none was sent. A ticket the caller does not see, of another installation or deleted, is a 404. See docs/resources/happiness.md.",
    request: { params: idParams },
    responses: {
      200: jsonResponse('the survey, or null when none was sent', teammateSurveySchema),
      404: errorResponse('no such ticket here'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    const [ticket] = await c.var.db.http
      .select({ id: tickets.id })
      .from(tickets)
      .where(and(recordScope(ticketsResource, who), eq(tickets.id, id)));
    if (!ticket) throw ApiError.notFound('id', `ticket ${id} not found`);
    const { rows } = await c.var.db.http.execute(sql`
    SELECT id, ${isoTime(sql`created_at`)} AS sent_at, ${isoTime(sql`expires_at`)} AS expires_at
      FROM happiness_surveys WHERE ticket_id = ${id} AND installation_id = ${who.installationId} ORDER BY id DESC LIMIT 1`);
    const row = rows[0];
    if (!row) return c.json({ happinesssurvey: null }, 200);
    const url = await surveyLink(c.env, new URL(c.req.url).origin, Number(row.id));
    return c.json(
      { happinesssurvey: { id: Number(row.id), url, sentAt: String(row.sent_at), expiresAt: String(row.expires_at) } },
      200,
    );
  },
);
