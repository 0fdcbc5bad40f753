import { sql } from 'drizzle-orm';
import type { Env } from '../../../app-env';
import type { Database } from '../../../db/client';
import { intList } from '../../../db/sql-values';
import { insertEventsFrom, rowsActor } from '../../../events/record-events';
import { backoffSeconds } from '../../../jobs/backoff';
import { outboxConsumer, outboxSweep, type Outbox } from '../../../jobs/outbox';
import { storedId } from '../read-mail';
import type { OutgoingMail } from './outgoing-mail';
import { MAX_MAILS_A_MESSAGE, queueSends } from './queue-mail';
import { sendFailureOf, type SendFailure } from './send-failure';

/** Tries of a message before a passing failure fails it for good: with the backoff from a minute, about nine hours of them. */
export const MAX_ATTEMPTS = 10;

interface Outbound {
  id: number;
  installationId: number;
  mail: OutgoingMail;
  attempts: number;
  dueIn: number;
}

type Outcome = { id: number; sent: string } | { id: number; failure: SendFailure; attempts: number };

async function readQueued(db: Database, ids: readonly number[]): Promise<Outbound[]> {
  const { rows } = await db.http.execute(sql`
    SELECT id, installation_id AS "installationId", mail, attempts, extract(epoch FROM next_attempt_at - now())::float8 * 1000 AS "dueIn"
      FROM outbound_mails WHERE id IN ${intList(ids)} AND status = 'queued' ORDER BY id`);
  return rows.map((row) => ({
    id: Number(row.id),
    installationId: Number(row.installationId),
    mail: row.mail as OutgoingMail,
    attempts: Number(row.attempts),
    dueIn: Number(row.dueIn),
  }));
}

class AttachmentGone extends Error {}

/** The message as the binding takes it: the files read from the bucket, empty parts left out. */
async function bindingMessage(env: Env, mail: OutgoingMail) {
  const attachments = await Promise.all(
    mail.files.map(async (file): Promise<EmailAttachment> => {
      const object = await env.FILES.get(file.key);
      if (!object) throw new AttachmentGone(`the attachment ${file.name} is no longer stored`);
      const content = await object.arrayBuffer();
      return file.disposition === 'inline'
        ? { content, filename: file.name, type: file.type, disposition: 'inline', contentId: `file-${file.id}` }
        : { content, filename: file.name, type: file.type, disposition: 'attachment' };
    }),
  );
  return {
    from: mail.from,
    to: mail.to,
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
    ...(mail.cc.length ? { cc: mail.cc } : {}),
    ...(mail.bcc.length ? { bcc: mail.bcc } : {}),
    ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
    ...(Object.keys(mail.headers).length ? { headers: mail.headers } : {}),
    ...(attachments.length ? { attachments } : {}),
  };
}

/** One try: the message handed to the `EMAIL` binding (Email Service), and what came of it. */
async function attempt(env: Env, outbound: Outbound): Promise<Outcome> {
  const attempts = outbound.attempts + 1;
  if (!env.EMAIL)
    return {
      id: outbound.id,
      attempts,
      failure: { permanent: true, reason: 'mail out is not set up: the Worker has no EMAIL (send_email) binding' },
    };
  let message;
  try {
    message = await bindingMessage(env, outbound.mail);
  } catch (error) {
    if (error instanceof AttachmentGone)
      return { id: outbound.id, attempts, failure: { permanent: true, reason: error.message } };
    return { id: outbound.id, attempts, failure: sendFailureOf(error) };
  }
  try {
    const result = await env.EMAIL.send(message);
    return {
      id: outbound.id,
      sent: await storedId(
        String(result.messageId ?? '')
          .trim()
          .replace(/^<|>$/g, ''),
      ),
    };
  } catch (error) {
    return { id: outbound.id, attempts, failure: sendFailureOf(error) };
  }
}

/**
 * Records the tries in one statement: each message sent (with the Message-ID the service gave
 * it, kept on its entry so the customer's answer threads), queued again after its backoff, or
 * failed; each entry's `emailStatus` follows. A failure is an event of the entry (an
 * auto-reply's own, `outboundmails`): someone must answer the customer another way. A send is
 * not: the entry's event told of it already. Answers the messages to try again with their waits.
 */
async function record(db: Database, env: Env, outcomes: Outcome[]): Promise<Array<{ id: number; wait: number }>> {
  const base = Number(env.MAIL_RETRY_BASE_SECONDS) || 60;
  const rows = outcomes.map((outcome) =>
    'sent' in outcome
      ? { id: outcome.id, status: 'sent', message_id: outcome.sent || null, error: null, wait: null }
      : outcome.failure.permanent || outcome.attempts >= MAX_ATTEMPTS
        ? { id: outcome.id, status: 'failed', message_id: null, error: outcome.failure.reason, wait: null }
        : {
            id: outcome.id,
            status: 'queued',
            message_id: null,
            error: outcome.failure.reason,
            wait: backoffSeconds(outcome.attempts, base),
          },
  );
  const actor = rowsActor('mail');
  const change = sql`jsonb_build_object('emailStatus', jsonb_build_object('before', 'queued', 'after', r.status))
    || CASE WHEN r.error IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('emailError', jsonb_build_object('before', NULL, 'after', r.error)) END`;
  // a batch of one: its events say themselves whose drain to ask for
  const [settled] = await db.batch([
    sql`
    WITH o AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS o(id int, status text, message_id text, error text, wait int)),
    tried AS (
      UPDATE outbound_mails m SET attempts = m.attempts + 1, updated_at = now(), status = o.status, last_error = o.error,
             message_id = coalesce(o.message_id, m.message_id), sent_at = CASE WHEN o.status = 'sent' THEN now() ELSE m.sent_at END,
             next_attempt_at = CASE WHEN o.status = 'queued' THEN now() + make_interval(secs => o.wait) END
        FROM o WHERE m.id = o.id AND m.status = 'queued'
      RETURNING m.id, m.installation_id, m.thread_entry_id, m.kind, o.status, o.error, o.wait, o.message_id),
    entries AS (
      UPDATE ticket_messages e SET email_status = t.status, email_error = t.error,
             email_message_id = CASE WHEN t.status = 'sent' AND t.message_id IS NOT NULL AND NOT EXISTS (
               SELECT 1 FROM ticket_messages z WHERE z.installation_id = e.installation_id AND z.email_message_id = t.message_id) THEN t.message_id ELSE e.email_message_id END
        FROM tried t WHERE e.id = t.thread_entry_id AND t.status <> 'queued'
      RETURNING e.id, e.installation_id, t.status, t.error),
    entry_events AS (${insertEventsFrom(sql`entries`, actor, 'messages', 'updated', change, sql`r.status = 'failed'`)}),
    auto_reply_events AS (${insertEventsFrom(sql`tried`, actor, 'outboundmails', 'updated', change, sql`r.thread_entry_id IS NULL AND r.status = 'failed'`)})
    SELECT id, installation_id, status, wait FROM tried`,
  ]);
  return settled!
    .filter((row) => row.status === 'queued')
    .map((row) => ({ id: Number(row.id), wait: Number(row.wait) }));
}

/**
 * The outbox of outgoing mail (`src/jobs/outbox.ts`), tried by the queue consumer of `mail.send`:
 * each message held while it is tried, handed to the send binding, and its outcome recorded. A
 * passing failure comes back on the queue after the backoff, until `MAX_ATTEMPTS`; a lasting one
 * fails the message and its entry at once. A send whose record is lost (the database gone between
 * the two) is sent again when its lease runs out: mail goes out at least once, which is all a
 * sender without an idempotency key can promise.
 */
const outgoingMail: Outbox<Outbound, Outcome> = {
  table: 'outbound_mails',
  pending: 'queued',
  leaseSeconds: 60,
  maxAMessage: MAX_MAILS_A_MESSAGE,
  idsIn: (message) => (Array.isArray(message.outboundIds) ? message.outboundIds : []),
  // the row of a write's message may not be committed yet when the queue hands the message over
  uncommittedGraceMs: 60_000,
  read: async (db, ids) => ({ rows: await readQueued(db, ids), context: undefined }),
  attempt: (outbound, env) => attempt(env, outbound),
  record: async (db, env, tries) =>
    tries.length
      ? record(
          db,
          env,
          tries.map(({ outcome }) => outcome),
        )
      : [],
  queue: queueSends,
};

export const sendMail = outboxConsumer(outgoingMail);
export const sweepOutbound = outboxSweep(outgoingMail);
