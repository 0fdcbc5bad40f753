import { sql } from 'drizzle-orm';
import type { Env } from '../../../app-env';
import type { Transaction } from '../../../db/client';
import type { Subscriber } from '../../../events/subscriber';
import { escapeHtml, messageHtml, messageText } from '../../../lib/html/message-body';
import { fillTemplate } from '../../tickets/ticket-template';
import { plainAddress, type SendingInbox } from '../mail-address';
import { fromInbox, headerText, replySubject, SENDER_COLUMN, signed, threadingHeaders } from './outgoing-mail';
import { queueSends, writeOutbound } from './queue-mail';

/** What an inbox answers when it has no templates of its own. */
const DEFAULT_AUTO_REPLY_SUBJECT = 'Re: {{ticket.subject}}';
const DEFAULT_AUTO_REPLY_MESSAGE =
  '<p>Hello {{customer.firstName}},</p><p>We have received your message and will answer it as soon as we can. Your ticket number is {{ticket.id}}.</p>';

/** A new ticket from a message, as its auto-reply needs it. */
export interface NewMailTicket {
  installationId: number;
  inboxId: number;
  ticketId: number;
  /** where the answer goes: the message's envelope sender (RFC 3834 §4: the Return-Path), empty for a bounce */
  replyTo: string;
  /** the message's own Message-ID, which the answer names */
  messageId: string;
}

interface InboxRow {
  auto_reply_enabled: boolean;
  auto_reply_subject: string | null;
  auto_reply_message: string | null;
  sender: SendingInbox;
  signature: string | null;
  subject: string;
  first_name: string;
  last_name: string;
  /** the address is one of the installation's own inboxes' */
  ours: boolean;
}

/**
 * The inbox's auto-reply to a new ticket from mail (RFC 3834), written once the message's batch
 * has committed, by the subscriber of its `inboundmails` event: only when the inbox has
 * `autoReplyEnabled`, never to mail a machine sent (`Auto-Submitted`, bulk, a bounce) or a new
 * spam ticket (the event's `autoReply` is false for those), to an empty sender, or to one of the
 * helpdesk's own addresses (two inboxes answering each other would loop); marked `Auto-Submitted:
 * auto-replied` and threaded under the message. Subject and message are the inbox's templates with
 * the ticket's fields; its subject's token is signed over the ticket's id, which only the batch
 * learns. Queued to send once the subscriber's work commits.
 */
export const autoReplies: Subscriber = {
  name: 'mail.autoReply',
  does: "for mail that made a new ticket its inbox may answer (not a machine's mail, not spam), writes the inbox's auto-reply (its subject's token signed over the ticket's id), queued once it commits",
  on: [{ recordType: 'inboundmails', kinds: ['created'] }],
  async handle(event, { tx, env, afterCommit }) {
    if (event.data.outcome !== 'ticket' || event.data.autoReply !== true) return;
    const { rows } = await tx.execute(sql`
      SELECT inbox_id, ticket_id, envelope_from, message_id FROM inbound_mails WHERE id = ${event.recordId} AND installation_id = ${event.installationId}`);
    const row = rows[0];
    if (!row || row.ticket_id === null) return;
    const id = await writeAutoReply(tx, env, {
      installationId: event.installationId,
      inboxId: Number(row.inbox_id),
      ticketId: Number(row.ticket_id),
      replyTo: String(row.envelope_from),
      messageId: String(row.message_id),
    });
    if (id !== undefined) afterCommit(() => queueSends(env, [id]));
  },
};

async function writeAutoReply(tx: Transaction, env: Env, ticket: NewMailTicket): Promise<number | undefined> {
  const to = plainAddress(ticket.replyTo);
  if (!to.includes('@')) return undefined;
  const domain = env.MAIL_DOMAIN ? plainAddress(env.MAIL_DOMAIN) : undefined;
  if (domain && (to.endsWith(`.${domain}`) || to.endsWith(`@${domain}`))) return undefined;
  const { rows } = await tx.execute(sql`
    SELECT i.auto_reply_enabled, i.auto_reply_subject, i.auto_reply_message, ${SENDER_COLUMN}, i.signature, t.subject, c.first_name, c.last_name,
           EXISTS (SELECT 1 FROM inboxes o WHERE o.installation_id = i.installation_id AND o.state = 'active'
                      AND (lower(o.email) = ${to} OR lower(o.send_emails_from) = ${to} OR o.aliases @> ARRAY[${to}]::text[])) AS ours
      FROM inboxes i JOIN installations n ON n.id = i.installation_id JOIN tickets t ON t.id = ${ticket.ticketId} JOIN customers c ON c.id = t.customer_id
     WHERE i.id = ${ticket.inboxId} AND i.installation_id = ${ticket.installationId}`);
  const inbox = rows[0] as unknown as InboxRow | undefined;
  if (!inbox?.auto_reply_enabled || inbox.ours) return undefined;
  const sender = fromInbox(env, inbox.sender);
  if (!sender) return undefined;
  const values = {
    id: ticket.ticketId,
    subject: inbox.subject,
    customerFirstName: inbox.first_name,
    customerLastName: inbox.last_name,
    customerEmail: to,
  };
  const subject = fillTemplate(inbox.auto_reply_subject?.trim() || DEFAULT_AUTO_REPLY_SUBJECT, values, headerText);
  const html = messageHtml(
    fillTemplate(inbox.auto_reply_message?.trim() || DEFAULT_AUTO_REPLY_MESSAGE, values, escapeHtml),
    'html',
  );
  return writeOutbound(tx, {
    installationId: ticket.installationId,
    inboxId: ticket.inboxId,
    ticketId: ticket.ticketId,
    threadEntryId: null,
    kind: 'autoReply',
    mail: {
      ...sender,
      to: [to],
      cc: [],
      bcc: [],
      subject: await replySubject(env, ticket.ticketId, subject, { answer: false }),
      ...signed({ html, text: messageText(html) }, inbox.signature),
      headers: { ...threadingHeaders([ticket.messageId], ticket.messageId), 'Auto-Submitted': 'auto-replied' },
      files: [],
    },
  });
}
