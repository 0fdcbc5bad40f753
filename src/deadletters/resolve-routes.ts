import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { requireOperator } from '../auth/operator';
import type { Database } from '../db/client';
import { deadLetters } from '../db/schema';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/database-unavailable';
import { ApiError } from '../http/errors';
import { integerParam } from '../http/params';
import { errorResponse, jsonResponse } from '../http/responses';
import { defineRoute } from '../http/route';
import type { JobMessage } from '../jobs/job-message';
import { errorField, log } from '../lib/log';
import { OPERATOR_NOTE, OPERATOR_SECURITY, operatorRefusals } from './operator-route';
import { SOURCE_QUEUES, type SourceQueue } from './queues';
import { deadLetterBody, deadLetterJson, type DeadLetterRecord } from './record';

const params = z.object({ id: integerParam("the dead letter's id") });

interface Claimed {
  record: DeadLetterRecord;
  queue: SourceQueue;
  body: unknown;
}

/**
 * Marks an open dead letter replayed or discarded, in one statement that locks it first: of two
 * operators at once, one gets it and the other the 409. 404 when there is no such dead letter,
 * 409 when it was dealt with already.
 */
async function resolve(db: Database, id: number, mark: 'replayed_at' | 'discarded_at'): Promise<Claimed> {
  const { rows } = await db.http.execute(sql`
    WITH found AS (SELECT ${deadLetters.id} AS id, ${deadLetterJson} AS record FROM ${deadLetters} WHERE ${deadLetters.id} = ${id} FOR UPDATE),
    claimed AS (
      UPDATE ${deadLetters} SET ${sql.raw(mark)} = now() FROM found
       WHERE ${deadLetters.id} = found.id AND ${deadLetters.replayedAt} IS NULL AND ${deadLetters.discardedAt} IS NULL
       RETURNING ${deadLetterJson} AS record, ${deadLetters.queue} AS queue, ${deadLetters.body} AS body)
    SELECT found.record AS was, claimed.record, claimed.queue, claimed.body FROM found LEFT JOIN claimed ON true`);
  const row = rows[0];
  if (!row) throw ApiError.notFound('id', `dead letter ${id} not found`);
  if (!row.record) {
    const was = row.was as DeadLetterRecord;
    const when = was.replayedAt ?? was.discardedAt;
    throw ApiError.conflict(
      'id',
      `dead letter ${id} was ${was.state} already, at ${when}: only an open one is replayed or discarded (a replayed message that dies again is stored anew)`,
    );
  }
  return { record: row.record as DeadLetterRecord, queue: row.queue as SourceQueue, body: row.body };
}

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

/**
 * `POST /operator/deadletters/{id}/discard.json`: sets an open dead letter aside without sending
 * it (a message no consumer should run again): it leaves the open ones, and `/health`'s count.
 */
export const discardDeadLetterRoute = defineRoute(
  {
    method: 'post',
    path: '/operator/deadletters/{id}/discard.json',
    tag: 'Service',
    operationId: 'discardDeadLetter',
    public: true,
    security: OPERATOR_SECURITY,
    middleware: [requireOperator],
    summary: 'Set a dead letter aside',
    description: `Marks an open dead letter discarded: its message is not sent again, and it no longer counts in \`/health\`'s backlog. Kept, to be read. Once replayed or discarded it is a 409. ${OPERATOR_NOTE}`,
    request: { params },
    // another one: the first was replayed
    example: { params: { id: 2 } },
    responses: {
      200: jsonResponse('the dead letter, now discarded', deadLetterBody),
      ...operatorRefusals,
      409: errorResponse('replayed or discarded already'),
    },
  },
  async (c) => {
    const { id } = c.req.valid('param');
    const { record } = await resolve(c.var.db, id, 'discarded_at');
    log('info', 'dead letters: discarded', {
      deadLetterId: id,
      queue: record.queue,
      kind: record.kind,
      installationId: record.installationId,
    });
    return c.json({ deadLetter: record }, 200);
  },
);
