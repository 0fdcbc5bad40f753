import { sql } from 'drizzle-orm';
import type { AssistantContextReader } from '../../realtime/assistant-port';
import { usageNowSql, type UsageNow } from '../ai/allowance';
import { matchingArticlesSql, type PromptArticle } from '../helpdocs/matching-articles';

/** How many matching articles a chat answer is written from. */
export const ANSWER_ARTICLES = 3;

/**
 * What the form's AI assistant in a conversation's room answers from (`src/realtime/assistant-port.ts`,
 * set as the Worker starts): the conversation's contact and form, the public articles matching the
 * visitor's `question` and the installation's AI usage now, in one statement. Undefined when the
 * assistant may no longer answer here: the conversation is closed or gone, or its form's
 * assistant was switched off since the room was told (a room learns its form's settings at each join).
 */
export const readAssistantContext: AssistantContextReader = async (db, room, question) => {
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
    usageState: (row.usage as UsageNow).state,
  };
};
