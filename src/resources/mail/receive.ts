import { sql } from 'drizzle-orm';
import PostalMime from 'postal-mime';
import type { Env } from '../../app-env';
import { systemActor } from '../../auth/principal';
import { openDatabase, type Database, type Transaction } from '../../db/client';
import { sqlState } from '../../db/errors';
import { inboundMails } from '../../db/schema';
import { createRecord, createRecords, schemasOf, type WriteContext } from '../../engine';
import { announceEvents } from '../../events/announce';
import { configureEvents, noteEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { textToHtml } from '../../lib/html/message-body';
import { errorField, log } from '../../lib/log';
import { messagesResource } from '../tickets/messages.resource';
import { addTicketEntry } from '../tickets/thread';
import { ticketsResource } from '../tickets/tickets.resource';
import { resolveCustomer } from '../tickets/ticket-customer';
import { statusOfCode } from '../tickets/status-of-code';
import { inboxForAddress, plainAddress, type MailInbox } from './mail-address';
import { storeAttachments } from './mail-files';
import { readMail, storable, type InboundMail } from './read-mail';
import { ticketOfSubject } from './thread-token';
import { writeAutoReply } from './outbound/auto-reply';
import { queueSends } from './outbound/queue-mail';

/** The largest message taken when `MAIL_MAX_BYTES` is not set: Email Routing's own limit. */
export const DEFAULT_MAX_BYTES = 25 * 1024 * 1024;
/** Messages one sender may send one inbox in `SENDER_WINDOW_MINUTES` before more are refused: a mail loop stops here. */
export const SENDER_LIMIT = 20;
export const SENDER_WINDOW_MINUTES = 10;

type Outcome = (typeof inboundMails.$inferInsert)['outcome'];

/** What is known of a message before its outcome: for the `inbound_mails` row. */
interface Received {
  inbox: MailInbox;
  envelopeFrom: string;
  envelopeTo: string;
  size: number;
  messageId: string;
  subject: string;
}

/** How long the raw message of a ticket or a reply is kept (`mail/raw-sweep.ts` deletes it after). */
export const RAW_KEPT_DAYS = 30;

/** The `inbound_mails` row of a message, with its `created` event: the outcome, as every outcome is one. */
async function recordOutcome(tx: Transaction | Database['http'], received: Received, outcome: Outcome, extra: { reason?: string; ticketId?: number; threadEntryId?: number; rawKey?: string } = {}) {
  await createRecords(tx, systemActor(received.inbox.installationId, 'mail'), { table: inboundMails, type: 'inboundmails' }, [{
    installationId: received.inbox.installationId, inboxId: received.inbox.inboxId, messageId: received.messageId,
    // an address is at most 320 characters (RFC 5321); the sender's is an index key
    envelopeFrom: storable(received.envelopeFrom).slice(0, 320), envelopeTo: storable(received.envelopeTo).slice(0, 320), subject: storable(received.subject).slice(0, 998),
    sizeBytes: received.size, outcome, reason: extra.reason ?? null, ticketId: extra.ticketId ?? null, threadEntryId: extra.threadEntryId ?? null,
    rawKey: extra.rawKey ?? null, rawExpiresAt: extra.rawKey ? sql`now() + make_interval(days => ${RAW_KEPT_DAYS})` : null,
  }], { outcome });
}

/** `whitelist`, `blacklist`, or neither: the sender's address, its domain, or the IP that handed the message over, on a spam list. */
async function spamListOf(db: Database, installationId: number, mail: InboundMail): Promise<string | undefined> {
  const address = mail.sender!.address;
  const terms = [address, address.slice(address.lastIndexOf('@') + 1), ...mail.senderIps];
  const { rows } = await db.http.execute(sql`
    SELECT list_type FROM spam_lists WHERE installation_id = ${installationId} AND state = 'active'
       AND lower(term) IN (SELECT jsonb_array_elements_text(${JSON.stringify(terms)}::jsonb))
     ORDER BY list_type = 'blacklist' DESC LIMIT 1`);
  return rows[0]?.list_type as string | undefined;
}

/** Whether the sender has sent the inbox `SENDER_LIMIT` messages in the last `SENDER_WINDOW_MINUTES` already. */
async function overSenderLimit(db: Database, inbox: MailInbox, envelopeFrom: string): Promise<boolean> {
  const { rows } = await db.http.execute(sql`
    SELECT count(*)::int AS n FROM inbound_mails
     WHERE installation_id = ${inbox.installationId} AND inbox_id = ${inbox.inboxId} AND lower(envelope_from) = ${plainAddress(storable(envelopeFrom)).slice(0, 320)}
       AND created_at > now() - make_interval(mins => ${SENDER_WINDOW_MINUTES})`);
  return Number(rows[0]?.n ?? 0) >= SENDER_LIMIT;
}

/** The ticket a message answers: one whose thread has a message it names (`In-Reply-To`, `References`), or the subject's token. */
async function ticketAnswered(tx: Transaction, env: Env, installationId: number, mail: InboundMail): Promise<number | undefined> {
  if (mail.repliesTo.length) {
    const { rows } = await tx.execute(sql`
      SELECT m.ticket_id FROM ticket_messages m JOIN tickets t ON t.id = m.ticket_id AND t.state = 'active'
       WHERE m.installation_id = ${installationId} AND m.email_message_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(mail.repliesTo)}::jsonb))
       ORDER BY m.id DESC LIMIT 1`);
    if (rows[0]) return Number(rows[0].ticket_id);
  }
  const byToken = await ticketOfSubject(env, mail.subject);
  if (byToken === undefined) return undefined;
  const { rows } = await tx.execute(sql`SELECT id FROM tickets WHERE id = ${byToken} AND installation_id = ${installationId} AND state = 'active'`);
  return rows[0] ? byToken : undefined;
}

/**
 * The message's thread entry, in one transaction with its `inbound_mails` row: a reply on the
 * ticket it answers (the customer's, when its sender is the ticket's customer; a note saying who
 * wrote it otherwise), or a new ticket in the inbox, its customer found by the sender's address
 * or made. A message taken already (its `Message-ID`) is a duplicate and changes nothing else.
 */
async function takeMessage(context: WriteContext, env: Env, received: Received, mail: InboundMail, raw: Uint8Array, whitelisted: boolean): Promise<{ outcome: Outcome; ticketId?: number; autoReply?: number }> {
  const { tx } = context;
  const { installationId, inboxId } = received.inbox;
  const { rows: taken } = await tx.execute(sql`
    SELECT ticket_id FROM inbound_mails WHERE installation_id = ${installationId} AND message_id = ${received.messageId} AND outcome IN ('ticket', 'reply') LIMIT 1`);
  if (taken[0]) {
    await recordOutcome(tx, received, 'duplicate', { ticketId: Number(taken[0].ticket_id), reason: 'this Message-ID was taken before' });
    return { outcome: 'duplicate', ticketId: Number(taken[0].ticket_id) };
  }
  const sender = mail.sender!;
  const customer = await resolveCustomer(context, { email: sender.address, firstName: sender.firstName || undefined, lastName: sender.lastName || undefined });
  const answered = await ticketAnswered(tx, env, installationId, mail);
  let ticketId: number;
  let entryId: number;
  let spam = false;
  if (answered !== undefined) {
    const { rows } = await tx.execute(sql`SELECT customer_id FROM tickets WHERE id = ${answered}`);
    const fromCustomer = Number(rows[0]!.customer_id) === customer;
    // the customer's only when the receiving server vouched for its From; else a note saying so
    const byCustomer = fromCustomer && mail.senderCheck.verified;
    const check = mail.senderCheck;
    const said = fromCustomer && !check.verified ? `From ${sender.address}, not verified (${check.why}):` : `From ${sender.address}:`;
    // the thread shows the reply without the history it quotes (the message whole stays downloadable)
    const body = byCustomer ? mail.replyHtml || '<p></p>' : `${textToHtml(said)}${mail.replyHtml}`;
    const entry = await addTicketEntry(context, answered, { message: body, ...(byCustomer ? { customer } : { threadType: 'note' as const }) });
    ticketId = answered;
    entryId = Number((entry[messagesResource.singular] as { id: number }).id);
    await tx.execute(sql`UPDATE ticket_messages SET email_message_id = ${received.messageId} WHERE id = ${entryId}`);
  } else {
    const source = await emailSource(tx, installationId);
    const score = whitelisted ? undefined : mail.spamScore;
    spam = score !== undefined && (await isSpam(context, inboxId, score));
    const body = schemasOf(ticketsResource).create.safeParse({
      subject: mail.subject.slice(0, 998) || '(no subject)', inbox: inboxId, customer, message: mail.html || '<p></p>', ...(source ? { source } : {}),
      ...(spam ? { status: await statusOfCode(context, 'spam') } : {}),
    });
    if (!body.success) throw ApiError.invalid('ticket', `the message does not make a ticket: ${body.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')}`);
    ticketId = await createRecord(context, ticketsResource, body.data as Record<string, unknown>);
    // what the mail adds to the ticket and its first entry, in one round trip
    const { rows } = await tx.execute(sql`
      WITH ticket AS (UPDATE tickets SET original_recipient = ${storable(received.envelopeTo).slice(0, 320)}, spam_score = ${score ?? null} WHERE id = ${ticketId})
      UPDATE ticket_messages SET email_message_id = ${received.messageId}
       WHERE id = (SELECT min(id) FROM ticket_messages WHERE ticket_id = ${ticketId}) RETURNING id`);
    entryId = Number(rows[0]!.id);
  }
  if (mail.attachments.length) await storeAttachments(context, env, ticketId, entryId, mail.attachments);
  // the message as it came, kept for a while (a failed transaction leaves the object to no row: nothing reads it)
  const rawKey = `mail/i${installationId}/${crypto.randomUUID()}.eml`;
  await env.FILES.put(rawKey, raw, { httpMetadata: { contentType: 'message/rfc822' } });
  const outcome = answered !== undefined ? 'reply' : 'ticket';
  await recordOutcome(tx, received, outcome, { ticketId, threadEntryId: entryId, rawKey });
  const autoReply = outcome === 'ticket'
    ? await writeAutoReply(tx, env, { installationId, inboxId, ticketId, replyTo: received.envelopeFrom, messageId: received.messageId, automatic: mail.automatic || spam })
    : undefined;
  return { outcome, ticketId, autoReply };
}

/** Whether a new ticket's score reaches its inbox's `spamThreshold`: the ticket starts as spam. */
async function isSpam({ tx }: WriteContext, inboxId: number, score: number): Promise<boolean> {
  const { rows } = await tx.execute(sql`SELECT spam_threshold FROM inboxes WHERE id = ${inboxId}`);
  return rows[0] !== undefined && score >= Number(rows[0].spam_threshold);
}

/** The installation's `Email` source (one of the sources every installation starts with), if it still has it. */
async function emailSource(tx: Transaction, installationId: number): Promise<number | undefined> {
  const { rows } = await tx.execute(sql`
    SELECT id FROM ticket_sources WHERE installation_id = ${installationId} AND state = 'active' AND lower(name) = 'email' ORDER BY is_custom, id LIMIT 1`);
  return rows[0] ? Number(rows[0].id) : undefined;
}

/**
 * Refuses the message with a reason the sending server reports to the sender. Awaited: where the
 * message comes over RPC (Miniflare's local Email Routing) the call is a promise, and the refusal
 * must land before the handler returns; in production it is a plain call.
 */
async function reject(message: ForwardableEmailMessage, reason: string): Promise<void> {
  await (message.setReject(reason) as unknown as Promise<void> | undefined);
}

/**
 * The `email()` handler: a message Email Routing hands over for one of the inboxes' addresses.
 * It is refused (`setReject`, which the sending server reports back to the sender) when no inbox
 * has the address, when it is over the size limit, cannot be read, names no sender, comes from a
 * blacklisted sender or from one sending too much; otherwise it becomes a thread entry
 * (`takeMessage`). Every outcome for an inbox is an `inbound_mails` row and its event.
 */
export async function receiveMail(message: ForwardableEmailMessage, env: Env): Promise<void> {
  configureEvents(env);
  const db = openDatabase(env);
  try {
    const inbox = await inboxForAddress(db, env, message.to);
    if (!inbox || 'refused' in inbox) {
      const reason = inbox?.refused ?? `no inbox receives mail at ${plainAddress(message.to)}`;
      log('info', 'mail: refused, no inbox may receive at the address', { to: plainAddress(message.to), reason });
      await reject(message, reason);
      return;
    }
    const received: Received = { inbox, envelopeFrom: message.from, envelopeTo: plainAddress(message.to), size: message.rawSize, messageId: '', subject: message.headers.get('subject') ?? '' };
    const refuse = async (reason: string) => {
      await recordOutcome(db.http, { ...received, messageId: received.messageId || '(unread)' }, 'refused', { reason });
      noteEvents(db, inbox.installationId, [['inboundmails', 'created']]);
      await reject(message, reason);
    };
    const maxBytes = Number(env.MAIL_MAX_BYTES) || DEFAULT_MAX_BYTES;
    if (message.rawSize > maxBytes) return await refuse(`the message is ${message.rawSize} bytes; this inbox takes at most ${maxBytes}`);
    const raw = new Uint8Array(await new Response(message.raw).arrayBuffer());
    let mail: InboundMail;
    try {
      mail = await readMail(await PostalMime.parse(raw, { maxNestingDepth: 50, maxHeadersSize: 1024 * 1024 }), raw, env.MAIL_AUTHSERV_ID || undefined);
    } catch {
      return await refuse('the message cannot be read as MIME');
    }
    received.messageId = mail.messageId;
    received.subject = mail.subject;
    if (!mail.sender) return await refuse('the message names no sender (From)');
    const listed = await spamListOf(db, inbox.installationId, mail);
    if (listed === 'blacklist') return await refuse('the sender is on this helpdesk\'s blacklist');
    if (await overSenderLimit(db, inbox, message.from)) return await refuse(`more than ${SENDER_LIMIT} messages from this sender in ${SENDER_WINDOW_MINUTES} minutes; try again later`);
    const who = systemActor(inbox.installationId, 'mail');
    const take = () => db.transaction((tx) => takeMessage({ tx, who, env }, env, received, mail, raw, listed === 'whitelist'));
    try {
      let result;
      try {
        result = await take();
      } catch (error) {
        // another delivery of this message, or another message of the same new sender, wrote the
        // same key at this moment (the Message-ID, the customer's address): once more, this one
        // finds what that one made (a duplicate, the customer)
        if (!['23505', '23P01'].includes(sqlState(error).code ?? '')) throw error;
        result = await take();
      }
      log('info', 'mail: taken', { installationId: inbox.installationId, outcome: result.outcome, ticketId: result.ticketId });
      // the auto-reply is written with the ticket; a send lost here is found by the cron's sweep
      if (result.autoReply !== undefined) {
        await queueSends(env, [result.autoReply]).catch((error: unknown) => log('warn', 'mail: could not queue an auto-reply; the sweep will', { error: errorField(error) }));
      }
    } catch (error) {
      // what the API would answer with a 4xx (a sender address no customer can have...) is refused with its reason: sending it again changes nothing
      if (error instanceof ApiError && error.status < 500) return await refuse(error.errors.map((e) => e.detail).join('; '));
      throw error;
    }
    noteEvents(db, inbox.installationId, [['tickets', 'created'], ['messages', 'created'], ['tickets', 'updated', ['status']], ['inboundmails', 'created']]);
  } catch (error) {
    log('error', 'mail: could not take a message', { to: plainAddress(message.to), error: errorField(error) });
    // not refused: the sending server tries again later, as after any temporary failure
    throw error;
  } finally {
    await announceEvents(env, db).catch(() => undefined);
    await db.close();
  }
}
