import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { EVERYONE } from '../../auth/access';
import { systemActor } from '../../auth/principal';
import type { Queryable } from '../../db/client';
import { happinessRatings, tickets } from '../../db/schema';
import { createRecords, isoTime, recordScope, referenceInput, updateRecords } from '../../engine';
import { noteEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idParams, textParam } from '../../http/params';
import { writableRecord } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import type { ResourceDeclaration } from '../../engine';
import { happinessRatingsResource } from './ratings.resource';
import { surveyLink, surveyOfToken } from './survey-token';
import { SURVEY_DAYS } from './survey-send';
import { ticketsResource } from '../tickets/tickets.resource';

const tokenParams = z.object({ token: textParam("the survey link's token").pipe(z.string().max(64)) });

const surveySchema = z
  .object({
    ticket: z.object({ id: z.number().int(), subject: z.string() }),
    options: z.array(z.object({ id: z.number().int(), name: z.string(), score: z.number().int() })),
    rating: z.object({ option: z.number().int(), comment: z.string() }).nullable(),
    expiresAt: z.string(),
  })
  .meta({ id: 'HappinessSurvey' });

interface Survey {
  id: number;
  installationId: number;
  ticketId: number;
  expired: boolean;
}

/** The survey a token names; 404 for a token that names none (a forged or mistyped link). */
async function surveyOf(env: Parameters<typeof surveyOfToken>[0], db: Queryable, token: string): Promise<Survey> {
  const id = await surveyOfToken(env, token);
  const { rows } = id === undefined ? { rows: [] } : await db.execute(sql`SELECT s.id, s.installation_id, s.ticket_id, s.expires_at <= now() AS expired FROM happiness_surveys s JOIN tickets t ON t.id = s.ticket_id AND t.state = 'active' WHERE s.id = ${id}`);
  if (!rows[0]) throw ApiError.notFound('token', 'no survey has this link');
  return { id: Number(rows[0].id), installationId: Number(rows[0].installation_id), ticketId: Number(rows[0].ticket_id), expired: rows[0].expired === true };
}

async function surveyBody(db: Queryable, survey: Survey) {
  const { rows } = await db.execute(sql`
    SELECT t.id, t.subject, ${isoTime(sql`s.expires_at`)} AS expires_at,
      coalesce((SELECT json_agg(json_build_object('id', o.id, 'name', o.name, 'score', o.score) ORDER BY o.display_order, o.id)
        FROM happiness_rating_options o WHERE o.installation_id = t.installation_id AND o.state = 'active'), '[]') AS options,
      (SELECT json_build_object('option', r.option_id, 'comment', r.comment) FROM happiness_ratings r WHERE r.ticket_id = t.id AND r.state = 'active') AS rating
      FROM happiness_surveys s JOIN tickets t ON t.id = s.ticket_id WHERE s.id = ${survey.id}`);
  const row = rows[0]!;
  return { survey: { ticket: { id: Number(row.id), subject: String(row.subject) }, options: row.options as { id: number; name: string; score: number }[], rating: (row.rating as { option: number; comment: string } | null) ?? null, expiresAt: String(row.expires_at) } };
}

/** `GET /v2/happiness/{token}.json`: what the customer is asked, public (the link is the credential). */
export const surveyRoute = defineRoute({
  method: 'get', path: '/v2/happiness/{token}.json', tag: 'HappinessRatings', operationId: 'getHappinessSurvey', public: true,
  summary: "A satisfaction survey, as its link's holder sees it",
  request: { params: tokenParams },
  responses: { 200: jsonResponse('the ticket asked about, the options, the rating given so far', z.object({ survey: surveySchema })), 404: errorResponse('no survey has this link') },
}, async (c) => {
  const survey = await surveyOf(c.env, c.var.db.http, c.req.valid('param').token);
  return c.json(await surveyBody(c.var.db.http, survey), 200);
});

const answerBody = writableRecord({
  option: referenceInput('happinessratingoptions').meta({ description: 'the option chosen: `{"id": N}` or N' }),
  comment: z.string().max(5000).optional().meta({ description: "the customer's words" }),
});

/**
 * `POST /v2/happiness/{token}.json`: the customer's rating (and comment) of the ticket; answering
 * again changes it. Each is an event of the rating (`created`, then `updated`), by the `survey` part.
 */
export const answerSurveyRoute = defineRoute({
  method: 'post', path: '/v2/happiness/{token}.json', tag: 'HappinessRatings', operationId: 'answerHappinessSurvey', public: true,
  summary: 'Rate the ticket a survey asks about',
  request: { params: tokenParams, body: { required: true, content: { 'application/json': { schema: answerBody } } } },
  responses: { 200: jsonResponse('the survey with the rating', z.object({ survey: surveySchema })), 404: errorResponse('no survey has this link'), 409: errorResponse('the survey has closed') },
}, async (c) => {
  const survey = await surveyOf(c.env, c.var.db.http, c.req.valid('param').token);
  if (survey.expired) throw ApiError.conflict('token', `the survey closed after ${SURVEY_DAYS} days`);
  const { option, comment } = c.req.valid('json') as { option: number; comment?: string };
  const who = systemActor(survey.installationId, 'survey');
  const body = await c.var.db.transaction(async (tx) => {
    const { rows } = await tx.execute(sql`
      SELECT o.score, t.agent_id, t.inbox_id FROM happiness_rating_options o, tickets t
       WHERE o.id = ${option} AND o.installation_id = ${survey.installationId} AND o.state = 'active' AND t.id = ${survey.ticketId} FOR UPDATE OF t`);
    if (!rows[0]) throw ApiError.invalid('option', `no happinessratingoptions ${option} here`);
    const values = { optionId: option, score: Number(rows[0].score), comment: comment ?? '', agentId: rows[0].agent_id === null ? null : Number(rows[0].agent_id), inboxId: Number(rows[0].inbox_id), surveyId: survey.id };
    const live = and(eq(happinessRatings.ticketId, survey.ticketId), eq(happinessRatings.state, 'active'))!;
    const [existing] = await tx.select({ id: happinessRatings.id }).from(happinessRatings).where(live);
    if (existing) {
      const watched = Object.fromEntries(['option', 'score', 'comment'].map((name) => [name, (happinessRatingsResource as ResourceDeclaration).fields[name]!.output ?? happinessRatingsResource.fields[name]!.column]));
      await updateRecords(tx, who, { table: happinessRatings, type: 'happinessratings', where: eq(happinessRatings.id, existing.id) }, values, watched);
    } else {
      await createRecords(tx, who, { table: happinessRatings, type: 'happinessratings' }, [{ ...values, ticketId: survey.ticketId }]);
    }
    return surveyBody(tx, survey);
  });
  noteEvents(c.var.db, survey.installationId, [['happinessratings']]);
  return c.json(body, 200);
});

const teammateSurveySchema = z
  .object({ happinesssurvey: z.object({ id: z.number().int(), url: z.string(), sentAt: z.string(), expiresAt: z.string() }).nullable() })
  .meta({ id: 'TicketHappinessSurvey' });

/** `GET /v2/tickets/{id}/happinesssurvey.json`: the ticket's latest survey and its link, for teammates who may see the ticket. */
export const ticketSurveyRoute = defineRoute({
  method: 'get', path: '/v2/tickets/{id}/happinesssurvey.json', tag: 'HappinessRatings', operationId: 'getTicketHappinessSurvey', roles: EVERYONE,
  summary: "A ticket's latest satisfaction survey and its link",
  request: { params: idParams },
  responses: { 200: jsonResponse('the survey, or null when none was sent', teammateSurveySchema), 404: errorResponse('no such ticket here') },
}, async (c) => {
  const who = c.var.principal;
  const { id } = c.req.valid('param');
  const [ticket] = await c.var.db.http.select({ id: tickets.id }).from(tickets).where(and(recordScope(ticketsResource, who), eq(tickets.id, id)));
  if (!ticket) throw ApiError.notFound('id', `ticket ${id} not found`);
  const { rows } = await c.var.db.http.execute(sql`
    SELECT id, ${isoTime(sql`created_at`)} AS sent_at, ${isoTime(sql`expires_at`)} AS expires_at
      FROM happiness_surveys WHERE ticket_id = ${id} AND installation_id = ${who.installationId} ORDER BY id DESC LIMIT 1`);
  const row = rows[0];
  if (!row) return c.json({ happinesssurvey: null }, 200);
  const url = await surveyLink(c.env, new URL(c.req.url).origin, Number(row.id));
  return c.json({ happinesssurvey: { id: Number(row.id), url, sentAt: String(row.sent_at), expiresAt: String(row.expires_at) } }, 200);
});

