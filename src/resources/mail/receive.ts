import PostalMime from 'postal-mime';
import type { Env } from '../../app-env';
import { openDatabase } from '../../db/client';
import { sqlState } from '../../db/errors';
import { announceEvents } from '../../events/announce';
import { configureEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { errorField, log } from '../../lib/log';
import { inboxForAddress, plainAddress } from './mail-address';
import { messageFactColumns, messageFacts, SENDER_LIMIT, SENDER_WINDOW_MINUTES } from './message-facts';
import { readMail, type InboundMail } from './read-mail';
import { outcomeStatement, takeStatements, type Received } from './take-message';

/** The largest message taken when `MAIL_MAX_BYTES` is not set: Email Routing's own limit. */
export const DEFAULT_MAX_BYTES = 25 * 1024 * 1024;

/** The message read: its bytes, and what was made of them (undefined: not MIME). */
interface ReadMessage {
  raw: Uint8Array;
  mail: InboundMail | undefined;
}

async function readMessage(message: ForwardableEmailMessage, env: Env): Promise<ReadMessage> {
  const raw = new Uint8Array(await new Response(message.raw).arrayBuffer());
  try {
    return {
      raw,
      mail: await readMail(
        await PostalMime.parse(raw, { maxNestingDepth: 50, maxHeadersSize: 1024 * 1024 }),
        raw,
        env.MAIL_AUTHSERV_ID || undefined,
      ),
    };
  } catch {
    return { raw, mail: undefined };
  }
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
 * (`take-message.ts`). Every outcome for an inbox is an `inbound_mails` row and its event.
 *
 * Two exchanges with the database, wherever it is: the message is read first, which needs none;
 * one statement finds its inbox with every fact its handling needs (`message-facts.ts`); one
 * batch writes the outcome. When another delivery of the same message, or another message of the
 * same new sender, wrote the same key at the same moment (the Message-ID, the customer's
 * address), both are done once more: this one then finds what that one made.
 */
export async function receiveMail(
  message: ForwardableEmailMessage,
  env: Env,
  ctx?: Pick<ExecutionContext, 'waitUntil'>,
): Promise<void> {
  configureEvents(env);
  const db = openDatabase(env);
  try {
    const maxBytes = Number(env.MAIL_MAX_BYTES) || DEFAULT_MAX_BYTES;
    const read = message.rawSize > maxBytes ? undefined : await readMessage(message, env);
    const mail = read?.mail;
    const columns = mail?.sender ? await messageFactColumns(env, mail, message.from, mail.messageId) : undefined;
    const attempt = async (): Promise<void> => {
      const inbox = await inboxForAddress(db, env, message.to, columns);
      if (!inbox || 'refused' in inbox) {
        const reason = inbox?.refused ?? `no inbox receives mail at ${plainAddress(message.to)}`;
        log('info', 'mail: refused, no inbox may receive at the address', {
          to: plainAddress(message.to),
          reason,
          dbRoundTrips: db.roundTrips(),
        });
        await reject(message, reason);
        return;
      }
      const received: Received = {
        inbox,
        envelopeFrom: message.from,
        envelopeTo: plainAddress(message.to),
        size: message.rawSize,
        messageId: mail?.messageId || '(unread)',
        subject: mail?.subject ?? message.headers.get('subject') ?? '',
      };
      const refuse = async (reason: string) => {
        await db.batch([outcomeStatement(db, received, 'refused', { reason })]);
        log('info', 'mail: refused', {
          installationId: inbox.installationId,
          messageId: received.messageId,
          reason,
          dbRoundTrips: db.roundTrips(),
        });
        await reject(message, reason);
      };
      if (message.rawSize > maxBytes)
        return await refuse(`the message is ${message.rawSize} bytes; this inbox takes at most ${maxBytes}`);
      if (!mail) return await refuse('the message cannot be read as MIME');
      if (!mail.sender) return await refuse('the message names no sender (From)');
      const facts = messageFacts(inbox.facts);
      if (facts.listed === 'blacklist') return await refuse("the sender is on this helpdesk's blacklist");
      if (facts.recent >= SENDER_LIMIT)
        return await refuse(
          `more than ${SENDER_LIMIT} messages from this sender in ${SENDER_WINDOW_MINUTES} minutes; try again later`,
        );
      if (facts.taken !== null) {
        await db.batch([
          outcomeStatement(db, received, 'duplicate', {
            ticketId: facts.taken,
            reason: 'this Message-ID was taken before',
          }),
        ]);
        log('info', 'mail: taken', {
          installationId: inbox.installationId,
          messageId: received.messageId,
          outcome: 'duplicate',
          ticketId: facts.taken,
          dbRoundTrips: db.roundTrips(),
        });
        return;
      }
      try {
        const take = await takeStatements(db, env, received, mail, read!.raw, facts, facts.listed === 'whitelist');
        const results = await db.batch(take.statements);
        log('info', 'mail: taken', {
          installationId: inbox.installationId,
          messageId: received.messageId,
          outcome: take.outcome,
          ticketId: Number(results.at(-1)![0]!.ticket),
          dbRoundTrips: db.roundTrips(),
        });
      } catch (error) {
        // what the API would answer with a 4xx (a sender address no customer can have...) is refused with its reason: sending it again changes nothing
        if (error instanceof ApiError && error.status < 500)
          return await refuse(error.errors.map((e) => e.detail).join('; '));
        throw error;
      }
    };
    try {
      await attempt();
    } catch (error) {
      if (!['23505', '23P01'].includes(sqlState(error).code ?? '')) throw error;
      await attempt();
    }
  } catch (error) {
    log('error', 'mail: could not take a message', { to: plainAddress(message.to), error: errorField(error) });
    // not refused: the sending server tries again later, as after any temporary failure
    throw error;
  } finally {
    // what follows the write (subscribers, the drain's message) waits for no sending server
    const after = db
      .afterBatches()
      .then(() => announceEvents(env, db))
      .catch(() => undefined)
      .finally(() => db.close());
    if (ctx) ctx.waitUntil(after);
    else await after;
  }
}
