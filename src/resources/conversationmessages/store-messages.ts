import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { insertEventsFrom, rowsActor } from '../../events/record-events';
import type { DeliveredMessage } from '../../realtime/room-protocol';
import { textSimilarity } from '../../lib/text-similarity';
import { ApiError } from '../../http/errors';
import { meterStoredMessages } from '../ai/usage-events';

export interface StoredMessage {
  id: number;
  installationId: number;
}

/**
 * Stores delivered messages in one statement, sent as a batch of its own: one round trip over the
 * driver's HTTP mode, all or nothing, and the installations of its events told to the drain by the
 * batch itself: each message at most once (a redelivery finds it by conversation and room id
 * and writes nothing), a `created` event of each new one (written by the room), the AI usage of
 * the new ones metered, the conversations' `lastMessageAt` moved on. A token of no conversation
 * refuses the whole delivery. Answers every message's row, new or not, in id order.
 */
export async function storeMessages(
  db: Database,
  messages: DeliveredMessage[],
  source = 'conversationmessages',
): Promise<StoredMessage[]> {
  const delivered = messages.map((m, ord) => ({
    ord,
    token: m.conversationToken,
    roomId: m.roomId,
    author: m.author,
    contactId: m.contactId,
    userId: m.userId,
    message: m.message,
    aiDraft: m.aiDraft,
    aiSimilarity: m.aiDraft !== null && m.author === 'agent' ? textSimilarity(m.aiDraft, m.message) : null,
    sentAt: m.sentAt,
  }));
  const [rows] = await db.batch([
    sql`
    WITH delivered AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(delivered)}::jsonb) AS d(
        ord integer, token text, "roomId" text, author text, "contactId" integer, "userId" integer,
        message text, "aiDraft" text, "aiSimilarity" real, "sentAt" timestamptz)
    ),
    unknown AS (
      SELECT min(d.ord) AS ord FROM delivered d WHERE NOT EXISTS (SELECT 1 FROM conversations c WHERE c.token = d.token)
    ),
    target AS (
      SELECT d.*, c.id AS conversation_id, c.installation_id
      FROM delivered d JOIN conversations c ON c.token = d.token
      WHERE (SELECT ord FROM unknown) IS NULL
    ),
    inserted AS (
      INSERT INTO conversation_messages
        (installation_id, conversation_id, author, contact_id, user_id, message, client_id, sent_at, ai_draft, ai_similarity, created_by, updated_by)
      SELECT installation_id, conversation_id, author, "contactId", "userId", message, "roomId", "sentAt", "aiDraft", "aiSimilarity", "userId", "userId"
      FROM target ORDER BY ord
      ON CONFLICT (conversation_id, client_id) DO NOTHING
      RETURNING id, installation_id, conversation_id, author, ai_draft, sent_at
    ),
    metered AS (${meterStoredMessages(sql`inserted`)}),
    logged AS (${insertEventsFrom(sql`inserted`, rowsActor('room'), 'conversationmessages', 'created', sql`jsonb_build_object('conversation', r.conversation_id)`)}),
    moved AS (
      UPDATE conversations c SET last_message_at = greatest(c.last_message_at, latest.sent_at)
      FROM (SELECT conversation_id, max(sent_at) AS sent_at FROM inserted GROUP BY conversation_id) latest
      WHERE c.id = latest.conversation_id
    )
    SELECT id, installation_id, NULL::integer AS unknown FROM inserted
    UNION ALL
    SELECT m.id, m.installation_id, NULL FROM conversation_messages m
    WHERE (m.conversation_id, m.client_id) IN (SELECT conversation_id, "roomId" FROM target)
    UNION ALL
    SELECT NULL, NULL, ord FROM unknown WHERE ord IS NOT NULL
    ORDER BY id`,
  ]);

  const unknown = rows!.find((row) => row.unknown !== null);
  if (unknown)
    throw ApiError.invalid(
      `${source}[${unknown.unknown as number}].conversationToken`,
      'no conversation has this token',
    );
  return rows!.map((row) => ({ id: row.id as number, installationId: row.installation_id as number }));
}
