import { z } from 'zod';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { surveyBody, surveyOf, surveyRead, surveySchema, tokenParams } from './survey';

/** `GET /v2/happiness/{token}.json`: what the customer is asked, public (the link is the credential). */
export const getHappinessSurveyRoute = defineRoute(
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
