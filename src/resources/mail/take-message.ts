import { sql, type SQL } from 'drizzle-orm';
import type { Env } from '../../app-env';
import { systemActor } from '../../auth/principal';
import type { Database } from '../../db/client';
import { recalled, remember } from '../../db/refusal';
import { inboundMails } from '../../db/schema';
import { createStatement, plannedCreateStatements, schemasOf } from '../../engine';
import { ApiError } from '../../http/errors';
import { textToHtml } from '../../lib/html/message-body';
import { ticketEntryStatements } from '../tickets/planned-entry';
import { customerStatements, newCustomerJoinsCompanies } from '../tickets/planned-ticket';
import { requireStatusOfCode, statusIdOfCode } from '../tickets/status-of-code';
import { ticketsResource } from '../tickets/tickets.resource';
import type { MailInbox } from './mail-address';
import { attachmentStatements } from './mail-files';
import type { MessageFacts } from './message-facts';
import { storable, type InboundMail } from './read-mail';

type Outcome = (typeof inboundMails.$inferInsert)['outcome'];

/** How long the raw message of a ticket or a reply is kept (`mail/raw-sweep.ts` deletes it after). */
export const RAW_KEPT_DAYS = 30;

/** What is known of a message before its outcome: for the `inbound_mails` row. */
export interface Received {
  inbox: MailInbox;
  envelopeFrom: string;
  envelopeTo: string;
  size: number;
  messageId: string;
  subject: string;
}

interface OutcomeDetails {
  reason?: string;
  ticketId?: number | SQL;
  threadEntryId?: number | SQL;
  rawKey?: string;
  /** a new ticket's: whether its inbox may answer it automatically (the auto-reply's subscriber reads it) */
  autoReply?: boolean;
}

/** The `inbound_mails` row of a message, with its `created` event: the outcome, as every outcome is one. */
export function outcomeStatement(
  db: Database,
  received: Received,
  outcome: Outcome,
  details: OutcomeDetails = {},
): SQL {
  const { installationId, inboxId } = received.inbox;
  return createStatement(
    db.http,
    systemActor(installationId, 'mail'),
    { table: inboundMails, type: 'inboundmails' },
    [
      {
        installationId,
        inboxId,
        messageId: received.messageId,
        // an address is at most 320 characters (RFC 5321); the sender's is an index key
        envelopeFrom: storable(received.envelopeFrom).slice(0, 320),
        envelopeTo: storable(received.envelopeTo).slice(0, 320),
        subject: storable(received.subject).slice(0, 998),
        sizeBytes: received.size,
        outcome,
        reason: details.reason ?? null,
        ticketId: details.ticketId ?? null,
        threadEntryId: details.threadEntryId ?? null,
        rawKey: details.rawKey ?? null,
        rawExpiresAt: details.rawKey ? sql`now() + make_interval(days => ${RAW_KEPT_DAYS})` : null,
      },
    ],
    details.autoReply === undefined ? { outcome } : { outcome, autoReply: details.autoReply },
  );
}

/** The names the batch hands values on by. */
const ENTRY = 'mail_entry';

/**
 * The statements that take a message not taken before (`facts.taken`): a reply on the ticket it
 * answers (the customer's, when its sender is the ticket's customer and the receiving server
 * vouched for it; a note saying who wrote it otherwise), or a new ticket in the inbox, its
 * customer found by the sender's address or made, spam from the inbox's threshold on. Its parts
 * and the message as it came are stored in the bucket first; the batch's last statement answers
 * the ticket's and the entry's ids.
 */
export async function takeStatements(
  db: Database,
  env: Env,
  received: Received,
  mail: InboundMail,
  raw: Uint8Array,
  facts: MessageFacts,
  whitelisted: boolean,
) {
  const { installationId, inboxId } = received.inbox;
  const who = systemActor(installationId, 'mail');
  const sender = mail.sender!;
  const customer = {
    email: sender.address,
    firstName: sender.firstName.slice(0, 255) || undefined,
    lastName: sender.lastName.slice(0, 255) || undefined,
  };
  // the message as it came, kept for a while (a batch that fails leaves the object to no row: nothing reads it)
  const rawKey = `mail/i${installationId}/${crypto.randomUUID()}.eml`;
  await env.FILES.put(rawKey, raw, { httpMetadata: { contentType: 'message/rfc822' } });
  if (facts.answered) {
    const ticketId = facts.answered.ticket;
    const fromCustomer = facts.customer === facts.answered.customer;
    const check = mail.senderCheck;
    const byCustomer = fromCustomer && check.verified;
    const said =
      fromCustomer && !check.verified
        ? `From ${sender.address}, not verified (${check.why}):`
        : `From ${sender.address}:`;
    // the thread shows the reply without the history it quotes (the message whole stays downloadable)
    const message = byCustomer ? mail.replyHtml || '<p></p>' : `${textToHtml(said)}${mail.replyHtml}`;
    const entry = ticketEntryStatements(db, who, ticketId, {
      message,
      ...(byCustomer ? { customer: facts.answered.customer } : { threadType: 'note' as const }),
    });
    return {
      outcome: 'reply' as const,
      statements: [
        // the sender is a customer, found or made, whoever's ticket it is
        ...customerStatements(who, customer),
        newCustomerJoinsCompanies(who),
        ...entry.statements,
        sql`UPDATE ticket_messages SET email_message_id = ${received.messageId} WHERE id = ${entry.entryId} RETURNING ${remember(ENTRY, sql`id`)}`,
        ...(await attachmentStatements(db.http, who, env, sql`${ticketId}::int`, recalled(ENTRY), mail.attachments)),
        outcomeStatement(db, received, 'reply', { ticketId, threadEntryId: recalled(ENTRY), rawKey }),
        sql`SELECT ${ticketId}::int AS ticket`,
      ],
    };
  }
  const score = whitelisted ? undefined : mail.spamScore;
  const spam = score !== undefined && score >= facts.spamThreshold;
  const body = schemasOf(ticketsResource).create.safeParse({
    subject: mail.subject.slice(0, 998) || '(no subject)',
    inbox: inboxId,
    customer,
    message: mail.html || '<p></p>',
  });
  if (!body.success)
    throw ApiError.invalid(
      'ticket',
      `the message does not make a ticket: ${body.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')}`,
    );
  const record: Record<string, unknown> = {
    ...(body.data as Record<string, unknown>),
    // the installation's `Email` source (one of those every installation starts with), if it still has it
    source: sql`(SELECT id FROM ticket_sources WHERE installation_id = ${installationId} AND state = 'active' AND lower(name) = 'email' ORDER BY is_custom, id LIMIT 1)`,
    ...(spam ? { status: statusIdOfCode(who, 'spam') } : {}),
  };
  const ticket = await plannedCreateStatements(db, env, ticketsResource, who, record);
  if (!ticket) throw new Error('a ticket from mail has a batch form');
  return {
    outcome: 'ticket' as const,
    statements: [
      ...(spam ? [requireStatusOfCode(who, 'spam')] : []),
      ...ticket.statements,
      // what the mail adds to the ticket and its first entry
      sql`UPDATE tickets SET original_recipient = ${storable(received.envelopeTo).slice(0, 320)}, spam_score = ${score ?? null} WHERE id = ${ticket.id}`,
      sql`UPDATE ticket_messages SET email_message_id = ${received.messageId}
           WHERE id = (SELECT min(id) FROM ticket_messages WHERE ticket_id = ${ticket.id}) RETURNING ${remember(ENTRY, sql`id`)}`,
      ...(await attachmentStatements(db.http, who, env, ticket.id, recalled(ENTRY), mail.attachments)),
      outcomeStatement(db, received, 'ticket', {
        ticketId: ticket.id,
        threadEntryId: recalled(ENTRY),
        rawKey,
        autoReply: !(mail.automatic || spam),
      }),
      sql`SELECT ${ticket.id} AS ticket`,
    ],
  };
}
