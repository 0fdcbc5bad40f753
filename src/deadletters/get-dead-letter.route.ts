import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { requireOperator } from '../auth/operator';
import { deadLetters } from '../db/schema';
import { ApiError } from '../http/errors';
import { integerParam } from '../http/params';
import { jsonResponse } from '../http/responses';
import { defineRoute } from '../http/route';
import { OPERATOR_NOTE, OPERATOR_SECURITY, operatorRefusals } from './operator-route';
import { deadLetterBody, deadLetterJson, type DeadLetterRecord } from './record';

/** `GET /operator/deadletters/{id}.json`: one dead letter, its message whole. */
export const getDeadLetterRoute = defineRoute(
  {
    method: 'get',
    path: '/operator/deadletters/{id}.json',
    tag: 'Service',
    operationId: 'getDeadLetter',
    public: true,
    security: OPERATOR_SECURITY,
    middleware: [requireOperator],
    summary: 'Get a dead letter',
    description: `One dead letter: the message as it was sent, the queue it died on, when, and what was done with it. ${OPERATOR_NOTE}`,
    request: { params: z.object({ id: integerParam("the dead letter's id") }) },
    responses: { 200: jsonResponse('the dead letter', deadLetterBody), ...operatorRefusals },
  },
  async (c) => {
    const { id } = c.req.valid('param');
    const { rows } = await c.var.db.http.execute(
      sql`SELECT ${deadLetterJson} AS record FROM ${deadLetters} WHERE ${deadLetters.id} = ${id}`,
    );
    if (!rows[0]) throw ApiError.notFound('id', `dead letter ${id} not found`);
    return c.json({ deadLetter: rows[0].record as DeadLetterRecord }, 200);
  },
);
