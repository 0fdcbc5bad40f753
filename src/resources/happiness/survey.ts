import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { EVERYONE } from '../../auth/access';
import { systemActor } from '../../auth/principal';
import type { Queryable } from '../../db/client';
import { happinessRatings, tickets } from '../../db/schema';
import { refuseWhen } from '../../db/refusal';
import { isoTime, recordScope, referenceInput, updateStatement } from '../../engine';
import { withEvents } from '../../events/record-events';
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
  const { rows } =
    id === undefined
      ? { rows: [] }
      : await db.execute(
          sql`SELECT s.id, s.installation_id, s.ticket_id, s.expires_at <= now() AS expired FROM happiness_surveys s JOIN tickets t ON t.id = s.ticket_id AND t.state = 'active' WHERE s.id = ${id}`,
        );
  if (!rows[0]) throw ApiError.notFound('token', 'no survey has this link');
  return {
    id: Number(rows[0].id),
    installationId: Number(rows[0].installation_id),
    ticketId: Number(rows[0].ticket_id),
    expired: rows[0].expired === true,
  };
}

/** What the survey asks and what was answered, as one statement (to read, or last in a batch): `surveyBody` makes the answer of its row. */
const surveyRead = (survey: Survey) => sql`
    SELECT t.id, t.subject, ${isoTime(sql`s.expires_at`)} AS expires_at,
      coalesce((SELECT json_agg(json_build_object('id', o.id, 'name', o.name, 'score', o.score) ORDER BY o.display_order, o.id)
        FROM happiness_rating_options o WHERE o.installation_id = t.installation_id AND o.state = 'active'), '[]') AS options,
      (SELECT json_build_object('option', r.option_id, 'comment', r.comment) FROM happiness_ratings r WHERE r.ticket_id = t.id AND r.state = 'active') AS rating
      FROM happiness_surveys s JOIN tickets t ON t.id = s.ticket_id WHERE s.id = ${survey.id}`;

function surveyBody(row: Record<string, unknown>) {
  return {
    survey: {
      ticket: { id: Number(row.id), subject: String(row.subject) },
      options: row.options as { id: number; name: string; score: number }[],
      rating: (row.rating as { option: number; comment: string } | null) ?? null,
      expiresAt: String(row.expires_at),
    },
  };
}

/** `GET /v2/happiness/{token}.json`: what the customer is asked, public (the link is the credential). */
export const surveyRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/happiness/{token}.json',
    tag: 'HappinessRatings',
    operationId: 'getHappinessSurvey',
    public: true,
    summary: "A satisfaction survey, as its link's holder sees it",
    description:
      "What the customer who holds a survey link is asked: the ticket (its id and subject), the installation's rating options, the rating given so far (or null) and when the survey closes. The link's token is the credential: a forged, altered or mistyped one, or the survey of a deleted ticket, is a 404. See docs/resources/happiness.md.",
    request: { params: tokenParams },
    responses: {
      200: jsonResponse(
        'the ticket asked about, the options, the rating given so far',
        z.object({ survey: surveySchema }),
      ),
      404: errorResponse('no survey has this link'),
    },
  },
  async (c) => {
    const survey = await surveyOf(c.env, c.var.db.http, c.req.valid('param').token);
    const { rows } = await c.var.db.http.execute(surveyRead(survey));
    return c.json(surveyBody(rows[0]!), 200);
  },
);

const answerBody = writableRecord({
  option: referenceInput('happinessratingoptions').meta({ description: 'the option chosen: `{"id": N}` or N' }),
  comment: z.string().max(5000).optional().meta({ description: "the customer's words" }),
});

/**
 * `POST /v2/happiness/{token}.json`: the customer's rating (and comment) of the ticket; answering
 * again changes it. Each is an event of the rating (`created`, then `updated`), by the `survey` part.
 */
export const answerSurveyRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/happiness/{token}.json',
    tag: 'HappinessRatings',
    operationId: 'answerHappinessSurvey',
    public: true,
    summary: 'Rate the ticket a survey asks about',
    description:
      "Records the customer's rating of the ticket the survey link names: an `option` of the installation and an optional `comment` up to 5,000 characters; answering again changes it (one live rating a ticket), keeping the ticket's agent and inbox at that moment. Each answer is a `created`, then `updated`, event of the rating by the system's `survey` part; answers the survey with the rating. An option not of the installation is a 400 naming `option`, a survey past its 30 days a 409, and a link naming no survey a 404. See docs/resources/happiness.md.",
    request: { params: tokenParams, body: { required: true, content: { 'application/json': { schema: answerBody } } } },
    example: { body: { option: { id: 1 }, comment: 'Quick and friendly, thank you!' } },
    responses: {
      200: jsonResponse('the survey with the rating', z.object({ survey: surveySchema })),
      404: errorResponse('no survey has this link'),
      409: errorResponse('the survey has closed'),
    },
  },
  async (c) => {
    const survey = await surveyOf(c.env, c.var.db.http, c.req.valid('param').token);
    if (survey.expired) throw ApiError.conflict('token', `the survey closed after ${SURVEY_DAYS} days`);
    const { option, comment } = c.req.valid('json') as { option: number; comment?: string };
    const who = systemActor(survey.installationId, 'survey');
    // one batch after the survey's read: the ticket locked (answers one at a time), the option
    // checked, the live rating changed or else made, with the option's score and who has the ticket now
    const live = and(eq(happinessRatings.ticketId, survey.ticketId), eq(happinessRatings.state, 'active'))!;
    const values = {
      optionId: option,
      score: sql`(SELECT score FROM happiness_rating_options WHERE id = ${option})`,
      comment: comment ?? '',
      agentId: sql`(SELECT agent_id FROM tickets WHERE id = ${survey.ticketId})`,
      inboxId: sql`(SELECT inbox_id FROM tickets WHERE id = ${survey.ticketId})`,
      surveyId: survey.id,
    };
    const watched = Object.fromEntries(
      ['option', 'score', 'comment'].map((name) => [
        name,
        (happinessRatingsResource as ResourceDeclaration).fields[name]!.output ??
          happinessRatingsResource.fields[name]!.column,
      ]),
    );
    const writer = c.var.db.http;
    const made = writer
      .insert(happinessRatings)
      .values({
        ...values,
        ticketId: survey.ticketId,
        installationId: survey.installationId,
        createdBy: who.userId,
        updatedBy: who.userId,
      })
      .onConflictDoNothing({ target: happinessRatings.ticketId, where: sql`state = 'active'` })
      .returning({ id: happinessRatings.id })
      .getSQL();
    const results = await c.var.db.batch([
      sql`SELECT 1 FROM tickets WHERE id = ${survey.ticketId} FOR UPDATE`,
      refuseWhen(
        sql`NOT EXISTS (SELECT 1 FROM happiness_rating_options WHERE id = ${option} AND installation_id = ${survey.installationId} AND state = 'active')`,
        400,
        'option',
        `no happinessratingoptions ${option} here`,
      ),
      updateStatement(writer, who, { table: happinessRatings, type: 'happinessratings', where: live }, values, watched),
      // answered for the first time: no live rating to change, so it is made
      withEvents(made, who, 'happinessratings', 'created'),
      surveyRead(survey),
    ]);
    return c.json(surveyBody(results.at(-1)![0]!), 200);
  },
);

const teammateSurveySchema = z
  .object({
    happinesssurvey: z
      .object({ id: z.number().int(), url: z.string(), sentAt: z.string(), expiresAt: z.string() })
      .nullable(),
  })
  .meta({ id: 'TicketHappinessSurvey' });

/** `GET /v2/tickets/{id}/happinesssurvey.json`: the ticket's latest survey and its link, for teammates who may see the ticket. */
export const ticketSurveyRoute = defineRoute(
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
