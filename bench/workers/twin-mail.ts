// The mail benchmark's fair twin (issue 33): an email() handler that parses each message with
// postal-mime, as the service's does first, and writes the rows the service writes for it in ONE
// batch through the raw Neon driver (`neon(...).transaction([...])`, one HTTP exchange): the
// customer and its email contact (found by the sender's address, or made), a new ticket (or, for
// a message whose In-Reply-To names an entry of a live ticket, that ticket), its thread entry with
// the ticket's preview and search document, the `inbound_mails` row, and the events of each
// (dispatched at once where the service's are: contacts and inbound mails), then the batch's
// pending installations, as every batch of the service ends. The SQL is written here by hand to do
// what the service's statements do (src/resources/mail/receive.ts and what it calls); no service
// code. It does not look up the inbox (BENCH_INSTALLATION, BENCH_INBOX), the spam lists or the
// sender's limit, keeps no raw message or attachment in R2 and writes no `files` rows: the
// service's extra work, which its rate pays. A lost race (two messages of a new sender at once
// making the customer, a deadlock) is sent again, up to three tries, as the service's batches are.
import { neon } from '@neondatabase/serverless';
import PostalMime from 'postal-mime';
import { applyLocalStackSettings, type LocalStackVars } from '../../src/db/local-stack-settings';

interface Env extends LocalStackVars {
  DATABASE_URL: string;
  BENCH_INSTALLATION: string;
  BENCH_INBOX: string;
}

/** How much of a text goes into a preview and into the search document (the service's bounds). */
const PREVIEW_CHARS = 200;
const ENTRY_SEARCH_CHARS = 100_000;
const THREAD_SEARCH_CHARS = 300_000;

/** The customer whose email contact is the sender's address, or a new one with that contact; remembered as `twin.customer`. */
const CUSTOMER = `
  WITH found AS (
    SELECT c.customer_id AS id FROM customer_contacts c JOIN customers u ON u.id = c.customer_id AND u.state = 'active'
     WHERE c.installation_id = $1 AND c.type = 'email' AND c.state = 'active' AND lower(c.value) = lower($2)
     ORDER BY c.customer_id LIMIT 1),
  made AS (
    INSERT INTO customers (installation_id, email, first_name, last_name, add_method)
    SELECT $1, $2, $3, $4, 'ticket' WHERE NOT EXISTS (SELECT 1 FROM found)
    RETURNING id),
  contact AS (
    INSERT INTO customer_contacts (installation_id, customer_id, type, value, is_main)
    SELECT $1, id, 'email', $2, true FROM made
    RETURNING id, customer_id),
  customer_event AS (
    INSERT INTO events (installation_id, record_type, record_id, kind, actor_system)
    SELECT $1, 'customers', id, 'created', 'mail' FROM made),
  contact_event AS (
    INSERT INTO events (installation_id, record_type, record_id, kind, data, actor_system, dispatched_at)
    SELECT $1, 'customercontacts', id, 'created', jsonb_build_object('parent', jsonb_build_object('id', customer_id, 'type', 'customers')), 'mail', now() FROM contact)
  SELECT set_config('twin.customer', (SELECT id FROM found UNION ALL SELECT id FROM made LIMIT 1)::text, true) AS customer`;

/**
 * The live ticket an entry named by In-Reply-To belongs to, or a new ticket in the inbox (the
 * inbox's status for new tickets, the default type, the `Email` source, the search document of
 * its subject, customer and first entry); remembered as `twin.ticket` and `twin.new`.
 */
const TICKET = `
  WITH answered AS (
    SELECT m.ticket_id FROM ticket_messages m JOIN tickets t ON t.id = m.ticket_id AND t.state = 'active'
     WHERE m.installation_id = $1 AND m.email_message_id IN (SELECT jsonb_array_elements_text($3::jsonb))
     ORDER BY m.id DESC LIMIT 1),
  customer AS (SELECT * FROM customers WHERE id = current_setting('twin.customer')::int),
  ticket AS (
    INSERT INTO tickets (installation_id, subject, inbox_id, customer_id, status_id, type_id, source_id, original_recipient,
                         preview_text, last_message_at, search_vector, search_thread_chars)
    SELECT $1, $4, $2, c.id,
           coalesce((SELECT ticket_status_id FROM inboxes WHERE id = $2), 1),
           (SELECT id FROM ticket_types WHERE installation_id = $1 AND is_default AND state = 'active' LIMIT 1),
           (SELECT id FROM ticket_sources WHERE installation_id = $1 AND state = 'active' AND lower(name) = 'email' ORDER BY is_custom, id LIMIT 1),
           $5, left($6, ${PREVIEW_CHARS}), now(),
           setweight(to_tsvector('simple'::regconfig, $4), 'A')
             || setweight(to_tsvector('simple'::regconfig, concat_ws(' ', c.first_name, c.last_name, c.email, translate(c.email, '@.', '  '))), 'B')
             || setweight(to_tsvector('simple'::regconfig, left(' ' || left($6, ${ENTRY_SEARCH_CHARS}), ${THREAD_SEARCH_CHARS})), 'C'),
           length(left(' ' || left($6, ${ENTRY_SEARCH_CHARS}), ${THREAD_SEARCH_CHARS}))
      FROM customer c WHERE NOT EXISTS (SELECT 1 FROM answered)
    RETURNING id),
  ticket_event AS (
    INSERT INTO events (installation_id, record_type, record_id, kind, actor_system)
    SELECT $1, 'tickets', id, 'created', 'mail' FROM ticket)
  SELECT set_config('twin.ticket', coalesce((SELECT id FROM ticket), (SELECT ticket_id FROM answered))::text, true) AS ticket,
         set_config('twin.new', (EXISTS (SELECT 1 FROM ticket))::text, true) AS new`;

/**
 * The thread entry (the customer's message on a new ticket or on their own; a note on another's
 * ticket), with a reply's effect on its ticket (preview, last message, the search document
 * appended, a waiting or solved ticket reopened), its event, and the `inbound_mails` row with its event.
 */
const ENTRY = `
  WITH ticket AS (
    SELECT t.id, t.customer_id, current_setting('twin.new')::boolean AS new,
           t.customer_id = current_setting('twin.customer')::int AS from_customer
      FROM tickets t WHERE t.id = current_setting('twin.ticket')::int),
  entry AS (
    INSERT INTO ticket_messages (installation_id, ticket_id, thread_type, html_body, text_body, edit_method, customer_id, email_message_id)
    SELECT $1, t.id, CASE WHEN t.from_customer THEN 'message' ELSE 'note' END, $3, $4, 'html',
           CASE WHEN t.from_customer THEN t.customer_id END, $5
      FROM ticket t
    RETURNING id, ticket_id, thread_type, created_at, text_body),
  replied AS (
    UPDATE tickets t SET updated_at = now(),
      preview_text = CASE WHEN entry.thread_type <> 'note' THEN left(entry.text_body, ${PREVIEW_CHARS}) ELSE t.preview_text END,
      last_message_at = CASE WHEN entry.thread_type <> 'note' THEN entry.created_at ELSE t.last_message_at END,
      status_id = CASE WHEN entry.thread_type <> 'note' AND (SELECT code FROM ticket_statuses WHERE id = t.status_id) IN ('waiting', 'solved') THEN 1 ELSE t.status_id END,
      search_vector = CASE WHEN t.search_thread_chars + 1 + length(left(entry.text_body, ${ENTRY_SEARCH_CHARS})) <= ${THREAD_SEARCH_CHARS}
        THEN t.search_vector || setweight(to_tsvector('simple'::regconfig, left(entry.text_body, ${ENTRY_SEARCH_CHARS})), 'C') ELSE t.search_vector END,
      search_thread_chars = CASE WHEN t.search_thread_chars + 1 + length(left(entry.text_body, ${ENTRY_SEARCH_CHARS})) <= ${THREAD_SEARCH_CHARS}
        THEN t.search_thread_chars + 1 + length(left(entry.text_body, ${ENTRY_SEARCH_CHARS})) ELSE t.search_thread_chars END
      FROM entry, ticket WHERE t.id = entry.ticket_id AND NOT ticket.new),
  entry_event AS (
    INSERT INTO events (installation_id, record_type, record_id, kind, data, actor_system)
    SELECT $1, 'messages', e.id, 'created', jsonb_build_object('parent', jsonb_build_object('id', e.ticket_id, 'type', 'tickets'), 'threadType', e.thread_type,
             'author', CASE WHEN e.thread_type = 'note' THEN 'system' ELSE 'customer' END, 'isDraft', false, 'opening', t.new), 'mail'
      FROM entry e, ticket t),
  mail AS (
    INSERT INTO inbound_mails (installation_id, inbox_id, message_id, envelope_from, envelope_to, subject, size_bytes, outcome, ticket_id, thread_entry_id, raw_key, raw_expires_at)
    SELECT $1, $2, $5, $6, $7, $8, $9, CASE WHEN t.new THEN 'ticket' ELSE 'reply' END, e.ticket_id, e.id, $10, now() + make_interval(days => 30)
      FROM entry e, ticket t
    RETURNING id, outcome),
  mail_event AS (
    INSERT INTO events (installation_id, record_type, record_id, kind, data, actor_system, dispatched_at)
    SELECT $1, 'inboundmails', id, 'created', jsonb_build_object('outcome', outcome), 'mail', now() FROM mail)
  SELECT id FROM entry`;

/** Last in the batch, as in every batch of the service: the installations whose events it wrote are still to dispatch. */
const SETTLED = `
  SELECT x.xact, ARRAY(SELECT DISTINCT e.installation_id FROM events e WHERE e.xact = x.xact::bigint AND e.dispatched_at IS NULL) AS pending
    FROM (SELECT pg_current_xact_id_if_assigned()::text AS xact) x`;

/** A lost race, sent again as the service sends its own (src/db/client.ts): a key written at the same moment, a deadlock, a serialization failure. */
const RETRIED = ['23505', '23P01', '40P01', '40001'];

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export default {
  async fetch(): Promise<Response> {
    return new Response('not found', { status: 404 });
  },
  async email(message: ForwardableEmailMessage, env: Env): Promise<void> {
    applyLocalStackSettings(env);
    const raw = new Uint8Array(await new Response(message.raw).arrayBuffer());
    const parsed = await PostalMime.parse(raw, { maxNestingDepth: 50, maxHeadersSize: 1024 * 1024 });
    if (!parsed.from?.address) {
      message.setReject('no sender');
      return;
    }
    const installation = Number(env.BENCH_INSTALLATION);
    const inbox = Number(env.BENCH_INBOX);
    const address = parsed.from.address.toLowerCase();
    const [firstName = '', ...rest] = (parsed.from.name ?? '').split(' ');
    const messageId = (parsed.messageId ?? '').replace(/^<|>$/g, '');
    const repliesTo = [parsed.inReplyTo, parsed.references]
      .filter((v): v is string => !!v)
      .flatMap((v) => v.match(/[^<>\s]+@[^<>\s]+/g) ?? []);
    const text = parsed.text ?? '';
    const html = parsed.html ?? `<p>${escapeHtml(text)}</p>`;
    const subject = (parsed.subject ?? '').slice(0, 998) || '(no subject)';
    const sql = neon(env.DATABASE_URL);
    const batch = () =>
      sql.transaction([
        sql.query(CUSTOMER, [installation, address, firstName, rest.join(' ')]),
        sql.query(TICKET, [installation, inbox, JSON.stringify(repliesTo), subject, message.to, text]),
        sql.query(ENTRY, [
          installation,
          inbox,
          html,
          text,
          messageId,
          message.from,
          message.to,
          subject,
          message.rawSize,
          `mail/i${installation}/${crypto.randomUUID()}.eml`,
        ]),
        sql.query(SETTLED, []),
      ]);
    for (let tries = 1; ; tries++) {
      try {
        await batch();
        return;
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        if (tries >= 3 || !RETRIED.includes(code)) {
          console.error(`twin-mail: ${code} ${String(error)}`);
          throw error;
        }
      }
    }
  },
} satisfies ExportedHandler<Env>;
