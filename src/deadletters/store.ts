import { sql } from 'drizzle-orm';
import type { Env } from '../app-env';
import { openDatabase } from '../db/client';
import { isRowId } from '../http/params';
import { retryDelaySeconds } from '../jobs/backoff';
import { errorField, log } from '../lib/log';
import { ATTEMPTS_BEFORE_DEATH, type SourceQueue } from './queues';

/** A dead letter waits for the database up to an hour between tries (100 tries: about four days). */
const MAX_STORE_WAIT_SECONDS = 3_600;

/**
 * The installation a message names: its `installationId` (an events drain), or the one every
 * record hint of a webhook delivery message names. Null for the others (a mail send, an import
 * chunk), which name rows, not an installation.
 */
export function installationNamed(body: unknown): number | null {
  if (!body || typeof body !== 'object') return null;
  const { installationId, records } = body as { installationId?: unknown; records?: unknown };
  if (isRowId(installationId)) return installationId;
  if (!Array.isArray(records) || records.length === 0) return null;
  const named = new Set(
    records.map((record: unknown) =>
      record && typeof record === 'object' ? (record as { installationId?: unknown }).installationId : undefined,
    ),
  );
  const [only] = named;
  return named.size === 1 && isRowId(only) ? only : null;
}

/**
 * The consumer of a dead-letter queue: every message of the batch stored in one statement, once
 * (a message delivered again finds its row), then acknowledged; each new one logged as an error,
 * the line an operator alerts on. When the database does not take them, the batch comes back
 * later and nothing is lost meanwhile.
 */
export async function storeDeadLetters(batch: MessageBatch<unknown>, queue: SourceQueue, env: Env): Promise<void> {
  const letters = batch.messages.map((message) => ({
    installation_id: installationNamed(message.body),
    queue,
    message_id: message.id,
    body: message.body ?? null,
    attempts: ATTEMPTS_BEFORE_DEATH,
    sent_at: message.timestamp.toISOString(),
  }));
  const db = openDatabase(env);
  try {
    const { rows } = await db.http.execute(sql`
      INSERT INTO dead_letters (installation_id, queue, message_id, body, attempts, sent_at)
      SELECT installation_id, queue, message_id, body, attempts, sent_at
        FROM jsonb_to_recordset(${JSON.stringify(letters)}::jsonb)
          AS t(installation_id integer, queue text, message_id text, body jsonb, attempts integer, sent_at timestamptz)
      ON CONFLICT (queue, message_id) DO NOTHING
      RETURNING id, installation_id, message_id, body->>'kind' AS kind`);
    for (const row of rows) {
      log('error', 'queue: message dead-lettered', {
        queue,
        deadLetterId: Number(row.id),
        messageId: row.message_id,
        kind: row.kind ?? null,
        installationId: row.installation_id === null ? null : Number(row.installation_id),
        attempts: ATTEMPTS_BEFORE_DEATH,
      });
    }
    batch.ackAll();
  } catch (error) {
    log('error', 'dead letters: not stored; the dead-letter queue delivers them again', {
      queue,
      messages: batch.messages.length,
      error: errorField(error),
    });
    for (const message of batch.messages)
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts, env, MAX_STORE_WAIT_SECONDS) });
  } finally {
    await db.close();
  }
}
