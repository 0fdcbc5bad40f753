import { sql } from 'drizzle-orm';
import type { Env } from '../../../app-env';
import type { Transaction } from '../../../db/client';
import type { StoredEvent, Subscriber } from '../../../events/subscriber';
import { escapeHtml, messageHtml, messageText } from '../../../lib/html/message-body';
import { surveyLink } from '../../happiness/survey-token';
import type { SendingInbox } from '../mail-address';
import {
  distinctAddresses,
  fromInbox,
  replySubject,
  SENDER_COLUMN,
  signed,
  threadingHeaders,
  type MailFile,
  type OutgoingMail,
} from './outgoing-mail';
import { failEntryNow, queueSends, writeOutbound } from './queue-mail';

interface EntryRow {
  id: number;
  ticket_id: number;
  inbox_id: number;
  thread_type: string;
  is_draft: boolean;
  state: string;
  by_customer: boolean;
  html_body: string;
  text_body: string;
  entry_cc: string[];
  entry_bcc: string[];
  subject: string;
  ticket_cc: string[];
  ticket_bcc: string[];
  notify_customer: boolean;
  customer_email: string | null;
  sender: SendingInbox;
  signature: string | null;
  thread_ids: string[];
  answering: string | null;
  files: MailFile[];
  earlier_entries: number;
  survey_id: number | null;
  happiness_rating_message: string | null;
}

/** What asks for the rating when the inbox says nothing of its own. */
const DEFAULT_SURVEY_MESSAGE = '<p>How did we do? Tell us with one click:</p>';

/**
 * The satisfaction survey a solving reply carries (`happiness/survey-send.ts`): the inbox's
 * `happinessRatingMessage` and the survey's link, under the reply. No link without `PUBLIC_URL`:
 * a queue consumer does not know the address customers reach the API at.
 */
async function withSurvey(
  env: Env,
  entry: EntryRow,
  body: { html: string; text: string },
): Promise<{ html: string; text: string }> {
  if (entry.survey_id === null || !env.PUBLIC_URL) return body;
  const link = await surveyLink(env, env.PUBLIC_URL, Number(entry.survey_id));
  const asking = messageHtml(entry.happiness_rating_message?.trim() || DEFAULT_SURVEY_MESSAGE, 'html');
  return {
    html: `${body.html}<div class="survey">${asking}<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p></div>`,
    text: `${body.text}\n\n${messageText(asking)}\n${link}`,
  };
}

/** The entry with all its mail needs: the ticket, its customer's address, the inbox, the thread's Message-IDs, the files. */
async function readEntry(tx: Transaction, installationId: number, entryId: number): Promise<EntryRow | undefined> {
  const { rows } = await tx.execute(sql`
    SELECT m.id, m.ticket_id, t.inbox_id, m.thread_type, m.is_draft, m.state, m.customer_id IS NOT NULL AS by_customer, m.html_body, m.text_body,
           m.cc AS entry_cc, m.bcc AS entry_bcc, t.subject, t.cc AS ticket_cc, t.bcc AS ticket_bcc, t.notify_customer,
           nullif(c.email, '') AS customer_email, ${SENDER_COLUMN}, i.signature,
           coalesce((SELECT json_agg(x.email_message_id ORDER BY x.id) FROM ticket_messages x
                      WHERE x.ticket_id = m.ticket_id AND x.id < m.id AND x.state = 'active' AND x.email_message_id IS NOT NULL), '[]'::json) AS thread_ids,
           (SELECT x.email_message_id FROM ticket_messages x WHERE x.ticket_id = m.ticket_id AND x.id < m.id AND x.state = 'active'
               AND x.customer_id IS NOT NULL AND x.email_message_id IS NOT NULL ORDER BY x.id DESC LIMIT 1) AS answering,
           coalesce((SELECT json_agg(json_build_object('id', f.id, 'name', f.name, 'type', f.content_type, 'key', f.storage_key, 'disposition', f.disposition) ORDER BY f.id)
                       FROM ticket_message_files mf JOIN files f ON f.id = mf.file_id
                      WHERE mf.message_id = m.id AND f.storage_key IS NOT NULL AND f.state = 'active'), '[]'::json) AS files,
           (SELECT count(*)::int FROM ticket_messages x WHERE x.ticket_id = m.ticket_id AND x.id < m.id AND x.state = 'active') AS earlier_entries,
           (SELECT h.id FROM happiness_surveys h WHERE h.message_id = m.id ORDER BY h.id DESC LIMIT 1) AS survey_id, i.happiness_rating_message
      FROM ticket_messages m
      JOIN tickets t ON t.id = m.ticket_id
      JOIN inboxes i ON i.id = t.inbox_id
      JOIN installations n ON n.id = m.installation_id
      LEFT JOIN customers c ON c.id = t.customer_id
     WHERE m.id = ${entryId} AND m.installation_id = ${installationId}`);
  return rows[0] as unknown as EntryRow | undefined;
}

/**
 * Whether the entry goes to the customer by mail: a message (not a note), not a draft, written by
 * a teammate (or a trigger); or a new ticket's first message that a teammate wrote on the
 * customer's behalf with `notifyCustomer`, which tells the customer of the ticket.
 */
function mailable(entry: EntryRow, event: StoredEvent): boolean {
  if (entry.state !== 'active' || entry.thread_type !== 'message' || entry.is_draft) return false;
  if (!entry.by_customer) return true;
  return event.data.opening === true && event.actorUserId !== null && entry.notify_customer;
}

/** The message that mails an entry: from the inbox, to the customer with the copies, signed, threaded under what came before. */
async function composeReply(env: Env, entry: EntryRow): Promise<OutgoingMail | undefined> {
  const sender = fromInbox(env, entry.sender);
  if (!sender) return undefined;
  const to = [entry.customer_email!];
  const cc = distinctAddresses([...entry.entry_cc, ...entry.ticket_cc], to);
  const bcc = distinctAddresses([...entry.entry_bcc, ...entry.ticket_bcc], [...to, ...cc]);
  return {
    ...sender,
    to,
    cc,
    bcc,
    subject: await replySubject(env, Number(entry.ticket_id), entry.subject, {
      answer: Number(entry.earlier_entries) > 0,
    }),
    ...signed(await withSurvey(env, entry, { html: entry.html_body, text: entry.text_body }), entry.signature),
    headers: threadingHeaders(entry.thread_ids, entry.answering ?? undefined),
    files: entry.files.map((file) => ({ ...file, id: Number(file.id) })),
  };
}

/**
 * Mails a teammate's reply to the customer (`mailable`): when the entry is written, or when a
 * draft is sent. The outgoing message is composed and written with the drain's transaction (an
 * entry is mailed once however often its event comes), then queued once that commits. A customer
 * with no address is not mailed (a chat's); an inbox with no address to send from fails the entry at once.
 */
export const replyMail: Subscriber = {
  name: 'mail.replies',
  does: "mails a teammate's reply (a new one, or a draft sent) to the ticket's customer from the inbox's address, queued once it commits (docs/resources/mail.md)",
  on: [
    { recordType: 'messages', kinds: ['created'] },
    { recordType: 'messages', kinds: ['updated'], changed: ['isDraft'] },
  ],
  async handle(event, { tx, env, afterCommit }) {
    if (event.kind === 'updated' && (event.data.isDraft as { after?: unknown } | undefined)?.after !== false) return;
    const entry = await readEntry(tx, event.installationId, event.recordId);
    if (!entry || !mailable(entry, event) || !entry.customer_email) return;
    const mail = await composeReply(env, entry);
    if (!mail) {
      await failEntryNow(
        tx,
        event.installationId,
        entry.id,
        'the inbox has no address to send from: give it a localPart (at the mail domain), or an email or sendEmailsFrom on a domain this helpdesk verified (/v2/maildomains.json)',
      );
      return;
    }
    const id = await writeOutbound(tx, {
      installationId: event.installationId,
      inboxId: Number(entry.inbox_id),
      ticketId: Number(entry.ticket_id),
      threadEntryId: Number(entry.id),
      kind: 'reply',
      mail,
    });
    if (id !== undefined) afterCommit(() => queueSends(env, [id]));
  },
};
