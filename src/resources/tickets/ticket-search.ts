import { sql, type SQL } from 'drizzle-orm';
import type { WriteContext } from '../../engine';

/** How much of each entry, and of a whole thread, the search document holds (see docs/resources/search.md). */
export const ENTRY_SEARCH_CHARS = 100_000;
export const THREAD_SEARCH_CHARS = 300_000;

/** The language-neutral configuration: words are matched as written (lower-cased), in any language. */
export const SEARCH_CONFIG = sql.raw(`'simple'::regconfig`);

/** A thread's text as the search document holds it: each live entry (notes included, drafts not) with a space before it, in order, bounded. */
const threadText = sql`left(coalesce((
  SELECT string_agg(' ' || left(m.text_body, ${ENTRY_SEARCH_CHARS}), '' ORDER BY m.id) FROM ticket_messages m
   WHERE m.ticket_id = t.id AND m.state = 'active' AND NOT m.is_draft), ''), ${THREAD_SEARCH_CHARS})`;

/**
 * A ticket's search columns (over `tickets t` joined to its customer `c`): the document, of its
 * subject (weight A), its customer's name and email with the email's parts (B), and its thread
 * (C); and how many characters of thread it holds, so that a new entry can be appended
 * (`searchEffectOf`). The thread's text is bounded so that the document stays inside
 * Postgres's 1 MB tsvector limit whatever it holds (at most `THREAD_SEARCH_CHARS` characters,
 * `ENTRY_SEARCH_CHARS` of each entry: even 300,000 characters of distinct short words make under
 * 0.7 MB).
 */
export const searchColumns = sql`(search_vector, search_thread_chars) = (
  SELECT setweight(to_tsvector(${SEARCH_CONFIG}, t.subject), 'A')
      || setweight(to_tsvector(${SEARCH_CONFIG}, concat_ws(' ', c.first_name, c.last_name, c.email, translate(c.email, '@.', '  '))), 'B')
      || setweight(to_tsvector(${SEARCH_CONFIG}, thread.text), 'C'),
         length(thread.text)
    FROM (SELECT ${threadText} AS text) thread)`;

/**
 * What a new live entry's text (`text`, no draft) does to the search columns of ticket `t` as
 * they stand: appended (`'append'`) when the document counts its thread and the entry fits inside
 * the bound, which gives the very document a rewrite would (tsvector concatenation shifts the
 * entry's word positions past the thread's), without reading the thread again; nothing
 * (`'full'`) when the thread already fills the bound, as the entry comes after it; else the
 * document is rewritten (`'rewrite'`, `refreshSearch`).
 */
export function searchEffectOf(text: SQL): SQL {
  return sql`CASE WHEN t.search_thread_chars IS NULL THEN 'rewrite'
    WHEN t.search_thread_chars >= ${THREAD_SEARCH_CHARS} THEN 'full'
    WHEN t.search_thread_chars + 1 + length(left(${text}, ${ENTRY_SEARCH_CHARS})) <= ${THREAD_SEARCH_CHARS} THEN 'append'
    ELSE 'rewrite' END`;
}

/** The search columns of ticket `t` with an entry's text appended, where `searchEffectOf` says so. */
export function appendedToSearch(text: SQL, effect: SQL): SQL {
  return sql`search_vector = CASE WHEN ${effect} = 'append' THEN t.search_vector || setweight(to_tsvector(${SEARCH_CONFIG}, left(${text}, ${ENTRY_SEARCH_CHARS})), 'C') ELSE t.search_vector END,
    search_thread_chars = CASE WHEN ${effect} = 'append' THEN t.search_thread_chars + 1 + length(left(${text}, ${ENTRY_SEARCH_CHARS})) ELSE t.search_thread_chars END`;
}

/** Recomputes the search documents of these tickets: after their subject, customer or thread changed. */
export async function refreshSearch({ tx }: Pick<WriteContext, 'tx'>, ticketIds: readonly number[]): Promise<void> {
  if (ticketIds.length === 0) return;
  await tx.execute(
    refreshSearchStatement(sql`t.id IN (SELECT jsonb_array_elements_text(${JSON.stringify(ticketIds)}::jsonb)::int)`),
  );
}

/** `refreshSearch`'s statement over the tickets `t` for which `where` holds, to run or to send in a batch. */
export function refreshSearchStatement(where: SQL): SQL {
  return sql`UPDATE tickets t SET ${searchColumns} FROM customers c WHERE c.id = t.customer_id AND ${where}`;
}

/** The same, for every ticket of a customer whose name or email changed (the `tickets.search` subscriber). */
export async function refreshCustomerTickets(
  { tx }: Pick<WriteContext, 'tx'>,
  installationId: number,
  customerId: number,
): Promise<void> {
  await tx.execute(sql`
    UPDATE tickets t SET ${searchColumns}
      FROM customers c
     WHERE c.id = t.customer_id AND t.installation_id = ${installationId} AND t.customer_id = ${customerId}`);
}
