// The bare twin of a reply as the service sends it now (issue 33): the statements of
// `plannedTicketEntry` (src/resources/tickets/planned-entry.ts) for the benchmark's body, a
// teammate's note, written here by hand to do what they do, for the bare SQL Worker to send as
// one batch through the raw driver (`neon(...).transaction([...])`, `POST /batch/reply/{id}`):
//
//   1. the ticket locked, its status remembered, a 404 (`desk_refuse`) when it is not the
//      installation's live ticket (`lockTicketStatement`);
//   2. the entry, with what it does to its ticket (touched; its search document appended when the
//      thread fits the bound, else marked to be rewritten) and its event, dispatched at once as a
//      note's is (`threadEntryStatements`);
//   3. the search document rewritten from the whole thread, where 2 said so;
//   4. the entry read back (`sendWithReadBack`);
//   5. what every batch of the service ends with (src/db/client.ts): the installations whose
//      events it wrote that are still to dispatch, and whether in-transaction work wants them.
//
// The ticket's id and the body's message are slots the Worker fills for each request.
import { MESSAGE_SLOT, RECORD_SLOT } from './workers/slots';
import type { Statement } from './statements';

/** The service's bounds of the search document (src/resources/tickets/ticket-search.ts). */
const ENTRY_SEARCH_CHARS = 100_000;
const THREAD_SEARCH_CHARS = 300_000;

export function replyBatch(installationId: number, userId: number): Statement[] {
  const entryText = `left(e.text_body, ${ENTRY_SEARCH_CHARS})`;
  return [
    {
      text: `WITH locked AS (SELECT status_id FROM tickets WHERE installation_id = $1 AND state = 'active' AND id = $2 FOR UPDATE)
        SELECT coalesce((SELECT set_config('twin.ticket_status', status_id::text, true) FROM locked), desk_refuse(404, 'id', $3::text)::text)`,
      params: [installationId, RECORD_SLOT, 'ticket not found'],
    },
    {
      text: `WITH entry AS (
          INSERT INTO ticket_messages (installation_id, ticket_id, thread_type, html_body, text_body, edit_method, is_pinned, is_draft, created_by, updated_by)
          VALUES ($1, $2, 'note', $3, $3, 'html', false, false, $4, $4)
          RETURNING id, ticket_id, text_body),
        searched AS (
          SELECT CASE WHEN t.search_thread_chars IS NULL THEN 'rewrite'
                      WHEN t.search_thread_chars >= ${THREAD_SEARCH_CHARS} THEN 'full'
                      WHEN t.search_thread_chars + 1 + length(${entryText}) <= ${THREAD_SEARCH_CHARS} THEN 'append'
                      ELSE 'rewrite' END AS effect
            FROM tickets t JOIN entry e ON t.id = e.ticket_id),
        touched AS (
          UPDATE tickets t SET updated_at = now(),
            search_vector = CASE WHEN s.effect = 'append' THEN t.search_vector || setweight(to_tsvector('simple'::regconfig, ${entryText}), 'C') ELSE t.search_vector END,
            search_thread_chars = CASE WHEN s.effect = 'append' THEN t.search_thread_chars + 1 + length(${entryText}) ELSE t.search_thread_chars END
            FROM entry e, searched s WHERE t.id = e.ticket_id),
        logged AS (
          INSERT INTO events (installation_id, record_type, record_id, kind, data, actor_user_id, dispatched_at)
          SELECT $1, 'messages', e.id, 'created',
                 jsonb_build_object('parent', jsonb_build_object('id', e.ticket_id, 'type', 'tickets'), 'threadType', 'note', 'author', 'teammate', 'isDraft', false, 'opening', false),
                 $4, now()
            FROM entry e)
        SELECT set_config('twin.entry_id', id::text, true), set_config('twin.search', (SELECT effect FROM searched), true) FROM entry`,
      params: [installationId, RECORD_SLOT, MESSAGE_SLOT, userId],
    },
    {
      text: `UPDATE tickets t SET (search_vector, search_thread_chars) = (
          SELECT setweight(to_tsvector('simple'::regconfig, t.subject), 'A')
              || setweight(to_tsvector('simple'::regconfig, concat_ws(' ', c.first_name, c.last_name, c.email, translate(c.email, '@.', '  '))), 'B')
              || setweight(to_tsvector('simple'::regconfig, thread.text), 'C'),
                 length(thread.text)
            FROM (SELECT left(coalesce((SELECT string_agg(' ' || left(m.text_body, ${ENTRY_SEARCH_CHARS}), '' ORDER BY m.id) FROM ticket_messages m
                                        WHERE m.ticket_id = t.id AND m.state = 'active' AND NOT m.is_draft), ''), ${THREAD_SEARCH_CHARS}) AS text) thread)
          FROM customers c WHERE c.id = t.customer_id AND t.id = $1 AND current_setting('twin.search') = 'rewrite'`,
      params: [RECORD_SLOT],
    },
    {
      text: `SELECT row_to_json(m) AS record FROM ticket_messages m
         WHERE m.installation_id = $1 AND m.state = 'active' AND m.id = current_setting('twin.entry_id')::int
           AND EXISTS (SELECT 1 FROM tickets t WHERE t.id = m.ticket_id AND t.state = 'active')`,
      params: [installationId],
    },
    {
      text: `SELECT x.xact,
          ARRAY(SELECT DISTINCT e.installation_id FROM events e WHERE e.xact = x.xact::bigint AND e.dispatched_at IS NULL) AS pending,
          EXISTS (SELECT 1 FROM events e WHERE e.xact = x.xact::bigint AND e.dispatched_at IS NULL) AS wanted
        FROM (SELECT pg_current_xact_id_if_assigned()::text AS xact) x`,
      params: [],
    },
  ];
}
