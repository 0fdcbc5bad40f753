import { sql } from 'drizzle-orm';
import type { Env } from '../../app-env';
import type { Database } from '../../db/client';

/** The inbox a message is for, and its installation. */
export interface MailInbox {
  installationId: number;
  inboxId: number;
}

/** An address as mail writes it, compared as we store them: angle brackets and spaces off, lowercase. */
export function plainAddress(address: string): string {
  return address.trim().replace(/^<|>$/g, '').trim().toLowerCase();
}

/**
 * Which inbox mail for `address` goes to. Each inbox has an address of its own,
 * `<localPart>@<siteName>.<MAIL_DOMAIN>` (the installation's site name, a DNS label, under the
 * deployment's mail domain); mail to an inbox's own `email` or one of its `aliases` (the team's
 * addresses, forwarded here or routed by Email Routing) reaches it too, when one inbox alone has
 * that address (two that share one get neither: which would be a guess). This
 * look-up is what decides the installation, so it is the one query not scoped to one.
 */
export async function inboxForAddress(db: Database, env: Pick<Env, 'MAIL_DOMAIN'>, address: string): Promise<MailInbox | undefined> {
  const plain = plainAddress(address);
  const at = plain.lastIndexOf('@');
  if (at <= 0) return undefined;
  const local = plain.slice(0, at);
  const domain = plain.slice(at + 1);
  const mailDomain = env.MAIL_DOMAIN ? plainAddress(env.MAIL_DOMAIN) : undefined;
  const site = mailDomain && domain.endsWith(`.${mailDomain}`) ? domain.slice(0, -mailDomain.length - 1) : undefined;
  if (site !== undefined && /^[a-z0-9-]{1,63}$/.test(site)) {
    const { rows } = await db.http.execute(sql`
      SELECT i.id, i.installation_id FROM inboxes i JOIN installations n ON n.id = i.installation_id
       WHERE n.site_name = ${site} AND i.state = 'active' AND (lower(i.local_part) = ${local} OR i.aliases @> ARRAY[${plain}]::text[])
       ORDER BY lower(i.local_part) = ${local} DESC NULLS LAST LIMIT 1`);
    return rows[0] ? { installationId: Number(rows[0].installation_id), inboxId: Number(rows[0].id) } : undefined;
  }
  const { rows } = await db.http.execute(sql`
    SELECT id, installation_id FROM inboxes WHERE state = 'active' AND (lower(email) = ${plain} OR aliases @> ARRAY[${plain}]::text[]) LIMIT 2`);
  return rows.length === 1 ? { installationId: Number(rows[0]!.installation_id), inboxId: Number(rows[0]!.id) } : undefined;
}

/** An inbox as mail out needs it: its names and addresses. */
export interface SendingInbox {
  name: string;
  email: string | null;
  localPart: string | null;
  sendEmailsFrom: string | null;
  siteName: string;
}

/** The inbox's own address at the deployment's mail domain (`<localPart>@<siteName>.<MAIL_DOMAIN>`), where it always receives. */
function receivingAddress(env: Pick<Env, 'MAIL_DOMAIN'>, inbox: SendingInbox): string | undefined {
  return inbox.localPart && env.MAIL_DOMAIN ? `${inbox.localPart}@${inbox.siteName}.${plainAddress(env.MAIL_DOMAIN)}`.toLowerCase() : undefined;
}

/**
 * Where the inbox's mail comes from and where answers go. From `sendEmailsFrom` when the team set
 * one (its domain onboarded to Email Sending), else from the inbox's address at the mail domain
 * (ours, so always sendable), else from its `email`. Answers come back to the address at the mail
 * domain when mail goes out from another (`Reply-To`). None: the inbox has no address at all.
 */
export function sendingAddresses(env: Pick<Env, 'MAIL_DOMAIN'>, inbox: SendingInbox): { from: string; replyTo?: string } | undefined {
  const ours = receivingAddress(env, inbox);
  const from = inbox.sendEmailsFrom ?? ours ?? inbox.email;
  if (!from) return undefined;
  const answersTo = ours ?? inbox.email;
  return answersTo && plainAddress(answersTo) !== plainAddress(from) ? { from, replyTo: answersTo } : { from };
}
