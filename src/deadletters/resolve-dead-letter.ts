import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client';
import { deadLetters } from '../db/schema';
import { ApiError } from '../http/errors';
import { integerParam } from '../http/params';
import { type SourceQueue } from './queues';
import { deadLetterJson, type DeadLetterRecord } from './record';

export const params = z.object({ id: integerParam("the dead letter's id") });

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
export async function resolve(db: Database, id: number, mark: 'replayed_at' | 'discarded_at'): Promise<Claimed> {
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
