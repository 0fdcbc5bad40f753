import { sql, type SQL } from 'drizzle-orm';
import type { Env } from '../../app-env';
import { customerOfEmail } from '../tickets/ticket-customer';
import { plainAddress } from './mail-address';
import { storable, type InboundMail } from './read-mail';
import { ticketOfSubject } from './thread-token';

/** Messages one sender may send one inbox in `SENDER_WINDOW_MINUTES` before more are refused: a mail loop stops here. */
export const SENDER_LIMIT = 20;
export const SENDER_WINDOW_MINUTES = 10;

/** What the handling of a message needs to know of its inbox's installation, read with the inbox in one statement. */
export interface MessageFacts {
  /** the sender's address, its domain, or the IP that handed the message over, on a spam list */
  listed: 'whitelist' | 'blacklist' | null;
  /** messages of the same sender to the inbox in the last `SENDER_WINDOW_MINUTES` */
  recent: number;
  /** the ticket a message of the same `Message-ID` went to before: this one is a duplicate */
  taken: number | null;
  /** the ticket the message answers (`In-Reply-To`, `References`, the subject's token) and its customer */
  answered: { ticket: number; customer: number } | null;
  /** the customer the sender's address names */
  customer: number | null;
  /** the inbox's `spamThreshold` */
  spamThreshold: number;
}

/**
 * The columns over the inbox `i` that make `MessageFacts` (for `inboxForAddress`): the spam
 * lists, the sender's count, an earlier delivery of the message, the thread it answers, the
 * customer of its sender. The subject's token is checked in the Worker (its signature) before.
 */
export async function messageFactColumns(
  env: Pick<Env, 'PM_TOKEN_KEY'>,
  mail: InboundMail,
  envelopeFrom: string,
  messageId: string,
): Promise<SQL> {
  const sender = mail.sender!.address;
  const terms = [sender, sender.slice(sender.lastIndexOf('@') + 1), ...mail.senderIps];
  const byToken = await ticketOfSubject(env, mail.subject);
  const replied = mail.repliesTo.length
    ? sql`(SELECT m.ticket_id FROM ticket_messages m JOIN tickets t ON t.id = m.ticket_id AND t.state = 'active'
            WHERE m.installation_id = i.installation_id AND m.email_message_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(mail.repliesTo)}::jsonb))
            ORDER BY m.id DESC LIMIT 1)`
    : sql`NULL::int`;
  const tokened =
    byToken === undefined
      ? sql`NULL::int`
      : sql`(SELECT t.id FROM tickets t WHERE t.id = ${byToken} AND t.installation_id = i.installation_id AND t.state = 'active')`;
  return sql`
    (SELECT list_type FROM spam_lists WHERE installation_id = i.installation_id AND state = 'active'
        AND lower(term) IN (SELECT jsonb_array_elements_text(${JSON.stringify(terms)}::jsonb))
      ORDER BY list_type = 'blacklist' DESC LIMIT 1) AS listed,
    (SELECT count(*)::int FROM inbound_mails WHERE installation_id = i.installation_id AND inbox_id = i.id
        AND lower(envelope_from) = ${plainAddress(storable(envelopeFrom)).slice(0, 320)} AND created_at > now() - make_interval(mins => ${SENDER_WINDOW_MINUTES})) AS recent,
    (SELECT ticket_id FROM inbound_mails WHERE installation_id = i.installation_id AND message_id = ${messageId} AND outcome IN ('ticket', 'reply') LIMIT 1) AS taken,
    (SELECT json_build_object('ticket', t.id, 'customer', t.customer_id) FROM tickets t WHERE t.id = coalesce(${replied}, ${tokened})) AS answered,
    ${customerOfEmail(sql`i.installation_id`, sender)} AS customer,
    i.spam_threshold`;
}

/** The facts from the columns `messageFactColumns` asked for. */
export function messageFacts(row: Record<string, unknown>): MessageFacts {
  const answered = row.answered as { ticket: number; customer: number } | null;
  return {
    listed: (row.listed as MessageFacts['listed']) ?? null,
    recent: Number(row.recent ?? 0),
    taken: row.taken == null ? null : Number(row.taken),
    answered: answered ? { ticket: Number(answered.ticket), customer: Number(answered.customer) } : null,
    customer: row.customer == null ? null : Number(row.customer),
    spamThreshold: Number(row.spam_threshold),
  };
}
