import { sql } from 'drizzle-orm';
import type { Env } from '../../../app-env';
import { systemActor } from '../../../auth/principal';
import type { Transaction } from '../../../db/client';
import type { JobMessage } from '../../../jobs/job-message';
import { recordEvents } from '../../../events/record-events';
import type { OUTBOUND_KINDS } from '../../../db/schema';
import type { OutgoingMail } from './outgoing-mail';

export const SEND_KIND = 'mail.send';

/** Outgoing messages one queue message names at most. */
export const MAX_MAILS_A_MESSAGE = 20;

/** The queue message that sends outgoing mail; `queuedAt` tells a row not committed yet from one rolled back. */
function sendMessage(ids: readonly number[], queuedAt: number): JobMessage {
  return { kind: SEND_KIND, outboundIds: [...ids], queuedAt };
}

/**
 * Puts outgoing messages on the mail queue, to be sent after `delaySeconds` (now when absent);
 * `queuedAt`, when their rows were written (now unless a message not found yet is looked for again).
 */
export async function queueSends(
  env: Pick<Env, 'MAIL_OUT'>,
  ids: readonly number[],
  delaySeconds?: number,
  queuedAt = Date.now(),
): Promise<void> {
  const messages: MessageSendRequest<JobMessage>[] = [];
  for (let i = 0; i < ids.length; i += MAX_MAILS_A_MESSAGE) {
    messages.push({
      body: sendMessage(ids.slice(i, i + MAX_MAILS_A_MESSAGE), queuedAt),
      ...(delaySeconds ? { delaySeconds } : {}),
    });
  }
  for (let i = 0; i < messages.length; i += 100) await env.MAIL_OUT.sendBatch(messages.slice(i, i + 100));
}

/** An outgoing message to write: a thread entry's (a reply), a ticket's auto-reply, an SLA notification, a visitor's proof link (no ticket). */
export interface NewOutbound {
  installationId: number;
  inboxId: number;
  ticketId: number | null;
  threadEntryId: number | null;
  kind: (typeof OUTBOUND_KINDS)[number];
  mail: OutgoingMail;
}

/**
 * Writes the outgoing message in the caller's transaction, its entry marked `queued`; answers its
 * id, or undefined when the entry was mailed, or the ticket auto-replied to, already (a second
 * event or message for it). The caller queues the id once the transaction commits.
 */
export async function writeOutbound(tx: Transaction, outbound: NewOutbound): Promise<number | undefined> {
  const { rows } = await tx.execute(sql`
    INSERT INTO outbound_mails (installation_id, inbox_id, ticket_id, thread_entry_id, kind, mail)
    VALUES (${outbound.installationId}, ${outbound.inboxId}, ${outbound.ticketId}, ${outbound.threadEntryId}, ${outbound.kind}, ${JSON.stringify(outbound.mail)}::jsonb)
    ON CONFLICT DO NOTHING RETURNING id`);
  if (!rows[0]) return undefined;
  if (outbound.threadEntryId !== null)
    await tx.execute(
      sql`UPDATE ticket_messages SET email_status = 'queued', email_error = NULL WHERE id = ${outbound.threadEntryId}`,
    );
  return Number(rows[0].id);
}

/**
 * A thread entry that cannot be mailed at all (its inbox has no address): marked failed, with
 * why, and an event, as a send that fails for good is.
 */
export async function failEntryNow(
  tx: Transaction,
  installationId: number,
  entryId: number,
  reason: string,
): Promise<void> {
  await tx.execute(
    sql`UPDATE ticket_messages SET email_status = 'failed', email_error = ${reason} WHERE id = ${entryId}`,
  );
  await recordEvents(tx, systemActor(installationId, 'mail'), [
    {
      recordType: 'messages',
      recordId: entryId,
      kind: 'updated',
      data: { emailStatus: { before: null, after: 'failed' }, emailError: { before: null, after: reason } },
    },
  ]);
}
