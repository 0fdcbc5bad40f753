import { sql, type SQL } from 'drizzle-orm';

/**
 * The usage of AI work among new rows, as the body of a data-modifying CTE over `rows` (a CTE of
 * the rows the same statement stored, with `installation_id`), so the statement that stores the
 * work bills it too (docs/ai.md): one unit of `stream` (SQL over the row) for each row `where`
 * holds, at `occurredAt`, for the source `sourceId` names. At most once per source: work stored
 * twice is never billed twice.
 */
function meterRows(rows: SQL, source: { type: string; id: SQL; stream: SQL; occurredAt: SQL; where: SQL }): SQL {
  return sql`
    INSERT INTO ai_usage_events (installation_id, stream, units, source_type, source_id, occurred_at)
    SELECT installation_id, ${source.stream}, 1, ${source.type}, ${source.id}, ${source.occurredAt}
    FROM ${rows}
    WHERE ${source.where}
    ON CONFLICT (stream, source_type, source_id) DO NOTHING`;
}

/**
 * Stored chat messages (`rows` with `id`, `author`, `ai_draft`, `sent_at`): an agent's reply sent
 * from an AI draft is one `replies` unit, an AI assistant's answer one `chat` unit, each message once.
 */
export function meterStoredMessages(rows: SQL): SQL {
  return meterRows(rows, {
    type: 'conversationmessages',
    id: sql`id`,
    stream: sql`CASE author WHEN 'ai' THEN 'chat' ELSE 'replies' END`,
    occurredAt: sql`sent_at`,
    where: sql`author = 'ai' OR (author = 'agent' AND ai_draft IS NOT NULL)`,
  });
}

/**
 * Stored ticket thread entries (`rows` with `ai_draft_id`, `created_at`): a reply sent from an AI
 * draft is one `replies` unit, once per draft: a second reply from the same draft is not billed again.
 */
export function meterThreadEntries(rows: SQL): SQL {
  return meterRows(rows, {
    type: 'aidrafts',
    id: sql`ai_draft_id`,
    stream: sql`'replies'`,
    occurredAt: sql`created_at`,
    where: sql`ai_draft_id IS NOT NULL`,
  });
}
