import { sql, type SQL } from 'drizzle-orm';

/**
 * Meters the AI work among stored messages, as the body of a data-modifying CTE over `stored`
 * (a CTE of the new message rows: id, installation_id, author, ai_draft, sent_at), so the
 * statement that stores the messages records their usage too: an agent's reply sent from an AI
 * draft is one `replies` unit, an AI assistant's answer one `chat` unit (docs/ai.md). At most
 * once per source: a redelivered message is never billed twice.
 */
export function meterStoredMessages(stored: SQL): SQL {
  return sql`
    INSERT INTO ai_usage_events (installation_id, stream, units, source_type, source_id, occurred_at)
    SELECT installation_id, CASE author WHEN 'ai' THEN 'chat' ELSE 'replies' END, 1, 'conversationmessages', id, sent_at
    FROM ${stored}
    WHERE author = 'ai' OR (author = 'agent' AND ai_draft IS NOT NULL)
    ON CONFLICT (stream, source_type, source_id) DO NOTHING`;
}
