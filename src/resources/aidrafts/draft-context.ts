import { sql } from 'drizzle-orm';
import type { Principal } from '../../auth/principal';
import type { Database } from '../../db/client';
import { tickets } from '../../db/schema';
import { isoTime } from '../../engine';
import { messageHtml, messageText } from '../../lib/html/message-body';
import { usageNowSql, type UsageNow } from '../ai/allowance';
import { matchingArticlesSql, type PromptArticle } from '../helpdocs/matching-articles';
import { liveVisibleTickets } from '../tickets/ticket-visibility';

/** How many of a thread's latest entries reach the model, and how much of each. */
export const THREAD_ENTRIES = 20;
export const ENTRY_CHARS = 4_000;
/** How many matching articles a draft is written from. */
export const DRAFT_ARTICLES = 3;

export interface ThreadEntryForPrompt {
  id: number;
  /** `customer`, `teammate` or `note` (a teammate's internal note) */
  from: 'customer' | 'teammate' | 'note';
  text: string;
  at: string;
}

/** Everything a ticket's draft is written from, read in one statement. */
export interface DraftContext {
  ticketId: number;
  subject: string;
  customerName: string;
  inboxName: string;
  /** the inbox's signature as text; null: none */
  signature: string | null;
  /** oldest first: the ticket's latest entries, never drafts */
  entries: ThreadEntryForPrompt[];
  /** the customer's latest entry, which the draft answers; null when the customer has written none */
  replyToId: number | null;
  articles: PromptArticle[];
  usage: UsageNow;
}

/**
 * The ticket (only if the caller sees it, live), its customer's name, its inbox's name and
 * signature, its latest entries (no drafts; other tickets never), the help-doc articles that
 * match the customer's latest entry, and the installation's AI usage now: one statement, one
 * round trip before the model is called. Undefined when the caller does not see the ticket.
 */
export async function readDraftContext(
  db: Database,
  who: Principal,
  ticketId: number,
): Promise<DraftContext | undefined> {
  const { rows } = await db.http.execute(sql`
    WITH t AS (
      SELECT ${tickets.id} AS id, ${tickets.subject} AS subject, ${tickets.inboxId} AS inbox_id, ${tickets.customerId} AS customer_id
      FROM ${tickets}
      WHERE ${tickets.id} = ${ticketId} AND ${tickets.installationId} = ${who.installationId} AND ${liveVisibleTickets(who)}
    ), entries AS (
      SELECT m.id, CASE WHEN m.customer_id IS NOT NULL THEN 'customer' WHEN m.thread_type = 'note' THEN 'note' ELSE 'teammate' END AS author,
             left(m.text_body, ${ENTRY_CHARS}) AS text, m.created_at
      FROM t JOIN ticket_messages m ON m.ticket_id = t.id
      WHERE m.installation_id = ${who.installationId} AND m.state = 'active' AND NOT m.is_draft
      ORDER BY m.id DESC LIMIT ${THREAD_ENTRIES}
    ), latest AS (
      -- the customer's latest entry, however many teammate entries came after it
      SELECT m.id, left(m.text_body, ${ENTRY_CHARS}) AS text
      FROM t JOIN ticket_messages m ON m.ticket_id = t.id
      WHERE m.installation_id = ${who.installationId} AND m.state = 'active' AND NOT m.is_draft AND m.customer_id IS NOT NULL
      ORDER BY m.id DESC LIMIT 1
    )
    SELECT t.id, t.subject,
           btrim(coalesce(c.first_name, '') || ' ' || coalesce(c.last_name, '')) AS customer_name,
           i.name AS inbox_name, i.signature,
           (SELECT coalesce(json_agg(json_build_object('id', e.id, 'from', e.author, 'text', e.text,
               'at', ${isoTime(sql`e.created_at`)}) ORDER BY e.id), '[]'::json) FROM entries e) AS entries,
           (SELECT id FROM latest) AS reply_to_id,
           ${matchingArticlesSql(who.installationId, sql`(SELECT text FROM latest)`, { limit: DRAFT_ARTICLES, publicOnly: false })} AS articles,
           ${usageNowSql(who.installationId)} AS usage
    FROM t
    LEFT JOIN customers c ON c.id = t.customer_id AND c.installation_id = ${who.installationId}
    LEFT JOIN inboxes i ON i.id = t.inbox_id AND i.installation_id = ${who.installationId}`);
  const row = rows[0];
  if (!row) return undefined;
  return {
    ticketId: Number(row.id),
    subject: String(row.subject ?? ''),
    customerName: String(row.customer_name ?? ''),
    inboxName: String(row.inbox_name ?? ''),
    signature: row.signature ? messageText(messageHtml(String(row.signature), 'html')) || null : null,
    entries: row.entries as ThreadEntryForPrompt[],
    replyToId: row.reply_to_id === null ? null : Number(row.reply_to_id),
    articles: row.articles as PromptArticle[],
    usage: row.usage as UsageNow,
  };
}
