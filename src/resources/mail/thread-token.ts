import type { Env } from '../../app-env';
import { idOfSigned, signedId, type SignedIdKind } from '../../lib/signed-id';

/**
 * A ticket's token in a mail subject, `[#<ticket id>-<10 hex>]`: mail whose subject carries it
 * is a reply on the ticket, even without `In-Reply-To` (a client that drops it, a message
 * forwarded back). Signed with the subject tokens' own key (`src/lib/signed-id.ts`), so a subject
 * cannot name another ticket, and no other token (a survey link's) passes for one. It names the
 * ticket only: the mail's receiver looks the ticket up in the installation the mail came to.
 */
const SUBJECT: SignedIdKind = { purpose: 'ticket-mail', use: 'subjectToken', hexChars: 10 };
const IN_SUBJECT = /\[#([1-9]\d{0,9}-[0-9a-f]{10})\]/g;

/** The ticket the subject's token names, if it carries a good one. */
export async function ticketOfSubject(env: Pick<Env, 'PM_TOKEN_KEY'>, subject: string): Promise<number | undefined> {
  if (!env.PM_TOKEN_KEY) return undefined;
  for (const match of subject.matchAll(IN_SUBJECT)) {
    const id = await idOfSigned(env, SUBJECT, match[1]!);
    if (id !== undefined) return id;
  }
  return undefined;
}

/** The token a subject carries for the ticket (`[#<id>-<hex>]`); none when the Worker has no `PM_TOKEN_KEY` to sign with. */
export async function subjectToken(env: Pick<Env, 'PM_TOKEN_KEY'>, ticketId: number): Promise<string | undefined> {
  return env.PM_TOKEN_KEY ? `[#${await signedId(env, SUBJECT, ticketId)}]` : undefined;
}

/** Whether a subject carries a ticket token already (an answer keeps the one it came with). */
export const carriesToken = (subject: string): boolean => new RegExp(IN_SUBJECT.source).test(subject);
