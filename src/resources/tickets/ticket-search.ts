import { sql } from 'drizzle-orm';
import type { WriteContext } from '../../engine';
import type { Subscriber } from '../../events/subscriber';

/** How much of each entry, and of a whole thread, the search document holds (see docs/resources/search.md). */
export const ENTRY_SEARCH_CHARS = 100_000;
export const THREAD_SEARCH_CHARS = 300_000;

/** The language-neutral configuration: words are matched as written (lower-cased), in any language. */
export const SEARCH_CONFIG = sql.raw(`'simple'::regconfig`);

/**
 * A ticket's search document (over `tickets t` joined to its customer `c`): its subject (weight A), its customer's name and email with the
 * email's parts (B), and its thread's live entries, notes included, drafts not (C). The thread's
 * text is bounded so that the document stays inside Postgres's 1 MB tsvector limit whatever it
 * holds (at most `THREAD_SEARCH_CHARS` characters, `ENTRY_SEARCH_CHARS` of each entry: even
 * 300,000 characters of distinct short words make under 0.7 MB).
 */
export const searchDocument = sql`
  setweight(to_tsvector(${SEARCH_CONFIG}, t.subject), 'A')
  || setweight(to_tsvector(${SEARCH_CONFIG}, concat_ws(' ', c.first_name, c.last_name, c.email, translate(c.email, '@.', '  '))), 'B')
  || setweight(to_tsvector(${SEARCH_CONFIG}, left(coalesce((
       SELECT string_agg(left(m.text_body, ${ENTRY_SEARCH_CHARS}), ' ' ORDER BY m.id) FROM ticket_messages m
        WHERE m.ticket_id = t.id AND m.state = 'active' AND NOT m.is_draft), ''), ${THREAD_SEARCH_CHARS})), 'C')`;

/** Recomputes the search documents of these tickets: after their subject, customer or thread changed. */
export async function refreshSearch({ tx }: Pick<WriteContext, 'tx'>, ticketIds: readonly number[]): Promise<void> {
  if (ticketIds.length === 0) return;
  await tx.execute(sql`
    UPDATE tickets t SET search_vector = ${searchDocument}
      FROM customers c
     WHERE c.id = t.customer_id AND t.id IN (SELECT jsonb_array_elements_text(${JSON.stringify(ticketIds)}::jsonb)::int)`);
}

/** The same, for every ticket of a customer whose name or email changed (the `tickets.search` subscriber). */
export async function refreshCustomerTickets({ tx }: Pick<WriteContext, 'tx'>, installationId: number, customerId: number): Promise<void> {
  await tx.execute(sql`
    UPDATE tickets t SET search_vector = ${searchDocument}
      FROM customers c
     WHERE c.id = t.customer_id AND t.installation_id = ${installationId} AND t.customer_id = ${customerId}`);
}

/** A customer renamed or readdressed: their tickets' documents follow (a second or so after the write, by the drain). */
export const refreshSearchOfCustomer: Subscriber = {
  name: 'tickets.search',
  on: [{ recordType: 'customers', kinds: ['updated'], changed: ['firstName', 'lastName', 'email'] }],
  async handle(event, { tx }) {
    await refreshCustomerTickets({ tx }, event.installationId, event.recordId);
  },
};
