import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { contactForms, conversations } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { CONVERSATION_TOKEN } from './conversation-token';

export interface TokenConversation {
  id: number;
  installationId: number;
  contactId: number | null;
  status: 'open' | 'closed';
  /** the seconds a visitor's message waits for a teammate before the AI assistant answers it; null when the form has no assistant */
  assistantWaitSeconds: number | null;
}

/**
 * The live conversation a public token opens. A token of the wrong form or one no conversation
 * has is the same 404: the answer tells a guesser nothing.
 */
export async function conversationByToken(db: Database, token: string, source = 'token'): Promise<TokenConversation> {
  if (!CONVERSATION_TOKEN.test(token)) throw ApiError.notFound(source, 'no conversation has this token');
  const [found] = await db.http
    .select({
      id: conversations.id,
      installationId: conversations.installationId,
      contactId: conversations.contactId,
      status: conversations.status,
      assistantWaitSeconds: sql<
        number | null
      >`CASE WHEN ${contactForms.aiAssistant} AND ${contactForms.state} = 'active' THEN ${contactForms.aiWaitSeconds} END`,
    })
    .from(conversations)
    .leftJoin(contactForms, eq(contactForms.id, conversations.contactFormId))
    .where(and(eq(conversations.token, token), eq(conversations.state, 'active')));
  if (!found) throw ApiError.notFound(source, 'no conversation has this token');
  return found;
}
