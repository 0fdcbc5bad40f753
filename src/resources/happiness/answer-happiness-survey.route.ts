import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { systemActor } from '../../auth/principal';
import { refuseWhen } from '../../db/refusal';
import { happinessRatings } from '../../db/schema';
import type { ResourceDeclaration } from '../../engine';
import { referenceInput, updateStatement } from '../../engine';
import { withEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { writableRecord } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { happinessRatingsResource } from './ratings.resource';
import { surveyBody, surveyOf, surveyRead, surveySchema, tokenParams } from './survey';
import { SURVEY_DAYS } from './survey-send';

const answerBody = writableRecord({
  option: referenceInput('happinessratingoptions').meta({ description: 'the option chosen: `{"id": N}` or N' }),
  comment: z.string().max(5000).optional().meta({ description: "the customer's words" }),
});

/**
 * `POST /v2/happiness/{token}.json`: the customer's rating (and comment) of the ticket; answering
 * again changes it. Each is an event of the rating (`created`, then `updated`), by the `survey` part.
 */
export const answerHappinessSurveyRoute = defineRoute(
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
