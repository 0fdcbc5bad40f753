import { sql } from 'drizzle-orm';
import { systemActor } from '../../auth/principal';
import type { Subscriber } from '../../events/subscriber';
import { askForEmailProof } from '../contacts/email-proof';
import { queueSends } from '../mail/outbound/queue-mail';

/**
 * A widget visitor's new conversation asks the address they gave for proof (`contacts/email-proof.ts`),
 * once the conversation is written: the mail is nothing the visitor waits for, so the create is
 * one batch and the proof link is written after its commit, by the drain, with the record that
 * the event was handled (so once), and queued once that commits (a message lost is found by the
 * mail sweep). Only a contact the widget wrote with an email, linked to no customer and sent no
 * link yet, is asked.
 */
export const askVisitorForEmailProof: Subscriber = {
  name: 'conversations.askForEmailProof',
  does: "for a conversation the widget started, writes the proof-link mail to a visitor who gave a customer's address (`contacts/email-proof.ts`), queued once it commits",
  on: [{ recordType: 'conversations', kinds: ['created'] }],
  async handle(event, { tx, env, afterCommit }) {
    if (event.actorSystem !== 'widget') return;
    const { rows } = await tx.execute(sql`
      SELECT k.id, k.email, c.inbox_id FROM conversations c JOIN contacts k ON k.id = c.contact_id
       WHERE c.id = ${event.recordId} AND c.installation_id = ${event.installationId} AND c.contact_form_id IS NOT NULL
         AND k.email IS NOT NULL AND k.customer_id IS NULL AND k.email_token_hash IS NULL AND k.email_verified_at IS NULL`);
    const contact = rows[0] as { id: number; email: string; inbox_id: number | null } | undefined;
    if (!contact) return;
    const who = systemActor(event.installationId, 'widget');
    const mail = await askForEmailProof(
      tx,
      env,
      who,
      { id: Number(contact.id), email: contact.email },
      contact.inbox_id === null ? null : Number(contact.inbox_id),
    );
    if (mail !== undefined) afterCommit(() => queueSends(env, [mail]));
  },
};
