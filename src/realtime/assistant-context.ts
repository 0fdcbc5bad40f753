import { sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { usageNowSql, type UsageNow } from '../resources/ai/allowance';
import { matchingArticlesSql, type PromptArticle } from '../resources/helpdocs/matching-articles';
import type { RoomConversation } from './room-store';

/** How many matching articles a chat answer is written from. */
export const ANSWER_ARTICLES = 3;

/** What the assistant answers from, besides the room's own transcript. */
export interface AssistantContext {
  contactName: string;
  formName: string;
  /** published articles a public site shows, best match first: never private, unpublished or deleted ones */
  articles: PromptArticle[];
  usage: UsageNow;
}

/**
 * The conversation's contact and form, the public articles matching the visitor's `question`
 * and the installation's AI usage now, in one statement. Undefined when the assistant may no
 * longer answer here: the conversation is closed or gone, or its form's assistant was switched off
 * since the room was told (a room learns its form's settings at each join).
 */
export async function readAssistantContext(
  db: Database,
  room: RoomConversation,
  question: string,
): Promise<AssistantContext | undefined> {
  const { rows } = await db.http.execute(sql`
    SELECT k.name AS contact_name, f.name AS form_name,
           ${matchingArticlesSql(room.installationId, sql`${question}::text`, { limit: ANSWER_ARTICLES, publicOnly: true })} AS articles,
           ${usageNowSql(room.installationId)} AS usage
    FROM conversations c
    JOIN contact_forms f ON f.id = c.contact_form_id AND f.installation_id = c.installation_id
    LEFT JOIN contacts k ON k.id = c.contact_id AND k.installation_id = c.installation_id
    WHERE c.id = ${room.conversationId} AND c.installation_id = ${room.installationId}
      AND c.state = 'active' AND c.status = 'open' AND f.state = 'active' AND f.ai_assistant`);
  const row = rows[0];
  if (!row) return undefined;
  return {
    contactName: String(row.contact_name ?? ''),
    formName: String(row.form_name ?? ''),
    articles: row.articles as PromptArticle[],
    usage: row.usage as UsageNow,
  };
}
