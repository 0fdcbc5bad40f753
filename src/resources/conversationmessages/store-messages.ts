import { sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import type { MESSAGE_AUTHORS } from '../../db/schema';
import { textSimilarity } from '../../lib/text-similarity';
import { ApiError } from '../../http/errors';
import { recordAiUsage, type AiUsageEvent } from '../ai/usage-events';

/** A message as a room delivers it: the room's id for it is the key that makes delivery idempotent. */
export interface DeliveredMessage {
  conversationToken: string;
  roomId: string;
  author: (typeof MESSAGE_AUTHORS)[number];
  userId: number | null;
  contactId: number | null;
  message: string;
  aiDraft: string | null;
  sentAt: string;
}

export interface StoredMessage {
  id: number;
  installationId: number;
}

/**
 * Stores delivered messages in the caller's transaction: each at most once (a redelivery finds
 * it by conversation and room id and writes nothing), with the AI usage the new ones metered
 * and the conversations' `lastMessageAt` moved on. Answers every message's row, new or not.
 */
export async function storeMessages(tx: Transaction, messages: DeliveredMessage[], source = 'conversationmessages'): Promise<StoredMessage[]> {
  const tokens = [...new Set(messages.map((m) => m.conversationToken))];
  const found = await tx.execute(sql`
    SELECT id, installation_id, token FROM conversations WHERE token IN (${sql.join(tokens.map((t) => sql`${t}`), sql`, `)})`);
  const byToken = new Map(found.rows.map((row) => [row.token as string, { id: row.id as number, installationId: row.installation_id as number }]));
  const unknown = messages.findIndex((m) => !byToken.has(m.conversationToken));
  if (unknown >= 0) throw ApiError.invalid(`${source}[${unknown}].conversationToken`, 'no conversation has this token');

  const values = messages.map((m) => {
    const conversation = byToken.get(m.conversationToken)!;
    const similarity = m.aiDraft !== null && m.author === 'agent' ? textSimilarity(m.aiDraft, m.message) : null;
    return sql`(${conversation.installationId}, ${conversation.id}, ${m.author}, ${m.contactId}, ${m.userId}, ${m.message},
      ${m.roomId}, ${m.sentAt}::timestamptz, ${m.aiDraft}, ${similarity}::real, ${m.userId}, ${m.userId})`;
  });
  const inserted = await tx.execute(sql`
    INSERT INTO conversation_messages
      (installation_id, conversation_id, author, contact_id, user_id, message, client_id, sent_at, ai_draft, ai_similarity, created_by, updated_by)
    VALUES ${sql.join(values, sql`, `)}
    ON CONFLICT (conversation_id, client_id) DO NOTHING
    RETURNING id, installation_id, conversation_id, author, ai_draft, sent_at`);

  const usage: AiUsageEvent[] = inserted.rows.flatMap((row) => {
    const stream = row.author === 'ai' ? 'chat' : row.author === 'agent' && row.ai_draft !== null ? 'replies' : undefined;
    if (!stream) return [];
    return [{ installationId: row.installation_id as number, stream, sourceType: 'conversationmessages', sourceId: row.id as number, occurredAt: new Date(row.sent_at as string) }];
  });
  await recordAiUsage(tx, usage);

  if (inserted.rows.length > 0) {
    await tx.execute(sql`
      UPDATE conversations c SET last_message_at = greatest(c.last_message_at, latest.sent_at)
      FROM (SELECT conversation_id, max(sent_at) AS sent_at FROM conversation_messages
            WHERE id IN (${sql.join(inserted.rows.map((row) => sql`${row.id as number}`), sql`, `)}) GROUP BY conversation_id) latest
      WHERE c.id = latest.conversation_id`);
  }

  const keys = messages.map((m) => sql`(${byToken.get(m.conversationToken)!.id}::int, ${m.roomId}::text)`);
  const stored = await tx.execute(sql`
    SELECT id, installation_id FROM conversation_messages
    WHERE (conversation_id, client_id) IN (${sql.join(keys, sql`, `)}) ORDER BY id`);
  return stored.rows.map((row) => ({ id: row.id as number, installationId: row.installation_id as number }));
}
