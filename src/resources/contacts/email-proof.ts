import { sql } from 'drizzle-orm';
import type { Env } from '../../app-env';
import type { Actor } from '../../auth/principal';
import { newSecret } from '../../auth/secrets';
import type { Transaction } from '../../db/client';
import { escapeHtml, messageText } from '../../lib/html/message-body';
import type { SendingInbox } from '../mail/mail-address';
import { fromInbox, SENDER_COLUMN } from '../mail/outbound/outgoing-mail';
import { writeOutbound } from '../mail/outbound/queue-mail';
import { customerOfEmail } from '../tickets/ticket-customer';

/** Proof links one address is sent at most in an hour, whatever visitors give it (each chat its own link). */
const LINKS_AN_HOUR = 3;
/** How long a proof link works after the chat started. */
export const PROOF_DAYS = 7;

/** The public path of a proof link. */
export const proofPath = (token: string) => `/v2/contacts/verify/${token}`;

/**
 * A chat visitor who named themselves in the widget with the email of one of the installation's
 * customers is not taken at their word: the chat stands apart, and the address is mailed a link
 * (`confirm-contact-email.route.ts`) that links this visitor (this chat's contact, no other) to the customer
 * once followed. Nothing is mailed when no customer has the address, when the address was sent
 * `LINKS_AN_HOUR` links not yet followed in the last hour, or without `PUBLIC_URL` (no address to
 * link to). The mail carries nothing the visitor wrote. Answers the outgoing message's id, to
 * queue once the transaction commits.
 */
export async function askForEmailProof(
  tx: Transaction,
  env: Env,
  who: Actor,
  contact: { id: number; email: string },
  inboxId: number | null,
): Promise<number | undefined> {
  if (!env.PUBLIC_URL) return undefined;
  const email = contact.email.toLowerCase();
  const { rows } = await tx.execute(sql`
    SELECT ${SENDER_COLUMN}, i.id AS inbox_id
      FROM inboxes i JOIN installations n ON n.id = i.installation_id
     WHERE i.installation_id = ${who.installationId} AND i.state = 'active' AND (${inboxId}::int IS NULL OR i.id = ${inboxId}::int)
       AND ${customerOfEmail(who.installationId, email)} IS NOT NULL
       AND (SELECT count(*) FROM contacts k WHERE k.installation_id = ${who.installationId} AND lower(k.email) = ${email}
               AND k.email_token_hash IS NOT NULL AND k.created_at > now() - interval '1 hour') < ${LINKS_AN_HOUR}
     ORDER BY i.display_order, i.id LIMIT 1`);
  const inbox = rows[0] as { sender: SendingInbox; inbox_id: number } | undefined;
  const sender = inbox && fromInbox(env, inbox.sender);
  if (!inbox || !sender) return undefined;
  const token = await newSecret('hdv_');
  await tx.execute(sql`UPDATE contacts SET email_token_hash = ${token.hash} WHERE id = ${contact.id}`);
  const link = `${env.PUBLIC_URL.replace(/\/+$/, '')}${proofPath(token.secret)}`;
  const html =
    `<p>Someone started a chat with ${escapeHtml(inbox.sender.name)} just now and gave this email address.</p>` +
    `<p>If it was you, confirm it to see the chat with your account: <a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` +
    `<p>If it was not you, ignore this message and do not follow the link: nothing is shared until the address is confirmed. The link works for ${PROOF_DAYS} days.</p>`;
  return writeOutbound(tx, {
    installationId: who.installationId,
    inboxId: Number(inbox.inbox_id),
    ticketId: null,
    threadEntryId: null,
    kind: 'verification',
    mail: {
      ...sender,
      to: [email],
      cc: [],
      bcc: [],
      subject: 'Confirm your email address',
      html,
      text: messageText(html),
      headers: { 'Auto-Submitted': 'auto-generated' },
      files: [],
    },
  });
}
