import { sql } from 'drizzle-orm';
import { requireOperator } from '../auth/operator';
import { deadLetters } from '../db/schema';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/database-unavailable';
import { ApiError } from '../http/errors';
import { errorResponse, jsonResponse } from '../http/responses';
import { defineRoute } from '../http/route';
import type { JobMessage } from '../jobs/job-message';
import { errorField, log } from '../lib/log';
import { OPERATOR_NOTE, OPERATOR_SECURITY, operatorRefusals } from './operator-route';
import { SOURCE_QUEUES } from './queues';
import { deadLetterBody } from './record';
import { params, resolve } from './resolve-dead-letter';

/**
 * `POST /operator/deadletters/{id}/replay.json`: puts the message back on the queue it died on,
 * as it was sent, and marks the dead letter replayed. Marked first, then sent: when the queue does
 * not take it, the mark is taken back and the answer is a 503, so a dead letter is never marked
 * replayed without its message sent. Its consumer runs it again from the start (every consumer is
 * safe to run twice); if it fails every delivery again it comes back as a new dead letter.
 */
export const replayDeadLetterRoute = defineRoute(
  {
    method: 'post',
    path: '/operator/deadletters/{id}/replay.json',
    tag: 'Service',
    operationId: 'replayDeadLetter',
    public: true,
    security: OPERATOR_SECURITY,
    middleware: [requireOperator],
    summary: 'Put a dead letter back on its queue',
    description: `Sends the dead letter's message, as it was sent, to the queue it died on, and marks it replayed. Only an open one: once replayed or discarded it is a 409. A message that fails every delivery again is stored as a new dead letter. ${OPERATOR_NOTE}`,
    request: { params },
    example: { params: { id: 1 } },
    responses: {
      202: jsonResponse('queued again: the dead letter, now replayed', deadLetterBody),
      ...operatorRefusals,
      409: errorResponse('replayed or discarded already'),
    },
  },
  async (c) => {
    const { id } = c.req.valid('param');
    const claimed = await resolve(c.var.db, id, 'replayed_at');
    try {
      await c.env[SOURCE_QUEUES[claimed.queue].binding].send(claimed.body as JobMessage);
    } catch (error) {
      await c.var.db.http.execute(sql`UPDATE ${deadLetters} SET replayed_at = NULL WHERE ${deadLetters.id} = ${id}`);
      log('error', 'dead letters: the replay was not queued; the dead letter stays open', {
        deadLetterId: id,
        queue: claimed.queue,
        error: errorField(error),
      });
      throw new ApiError(
        503,
        [
          {
            code: 'unavailable',
            detail: `the queue ${claimed.queue} did not take the message; dead letter ${id} stays open: replay it again`,
          },
        ],
        { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
      );
    }
    log('info', 'dead letters: replayed', {
      deadLetterId: id,
      queue: claimed.queue,
      kind: claimed.record.kind,
      installationId: claimed.record.installationId,
    });
    return c.json({ deadLetter: claimed.record }, 202);
  },
);
