import { sql, type SQL } from 'drizzle-orm';
import type { Env } from '../../app-env';
import type { Database } from '../../db/client';
import { domainVerified } from '../maildomains/verified-domain';

/** The inbox a message is for, and its installation. */
export interface MailInbox {
  installationId: number;
  inboxId: number;
  /** the columns `facts` asked for, read with the inbox */
  facts: Record<string, unknown>;
}

/** An address as mail writes it, compared as we store them: angle brackets and spaces off, lowercase. */
export function plainAddress(address: string): string {
  return address.trim().replace(/^<|>$/g, '').trim().toLowerCase();
}

/** The domain part of an address, lowercase. */
export const domainOf = (address: string) => plainAddress(address).slice(plainAddress(address).lastIndexOf('@') + 1);

/** The deployment's mail domain, lowercase, when it has one. */
export const mailDomainOf = (env: Pick<Env, 'MAIL_DOMAIN'>): string | undefined =>
  env.MAIL_DOMAIN ? plainAddress(env.MAIL_DOMAIN).replace(/\.$/, '') : undefined;

/** Whether `domain` is the deployment's mail domain or a name under it (every site's own). */
export function underMailDomain(env: Pick<Env, 'MAIL_DOMAIN'>, domain: string): boolean {
  const mailDomain = mailDomainOf(env);
  return mailDomain !== undefined && (domain === mailDomain || domain.endsWith(`.${mailDomain}`));
}

/** Mail for an address no inbox may receive at yet: why, to refuse it with. */
export interface UnverifiedAddress {
  refused: string;
}

/**
 * Which inbox mail for `address` goes to. Each inbox has an address of its own,
 * `<localPart>@<siteName>.<MAIL_DOMAIN>` (the installation's site name, a DNS label, under the
 * deployment's mail domain); mail to an inbox's own `email` or one of its `aliases` (the team's
 * addresses, forwarded here or routed by Email Routing) reaches it too, when its installation has
 * verified the address's domain (`/v2/maildomains.json`; a verified domain is one installation's
 * alone) and one inbox alone there has that address (two that share one get neither: which would
 * be a guess). An address inboxes list on a domain none of their installations verified is
 * refused with that reason. This look-up is what decides the installation, so it is the one query
 * not scoped to one. `facts`, more columns over the inbox `i`, are read in the same statement:
 * what the message's handling needs to know of the inbox's installation.
 */
export async function inboxForAddress(
  db: Database,
  env: Pick<Env, 'MAIL_DOMAIN'>,
  address: string,
  facts?: SQL,
): Promise<MailInbox | UnverifiedAddress | undefined> {
  const more = facts ? sql`, ${facts}` : sql``;
  const plain = plainAddress(address);
  const at = plain.lastIndexOf('@');
  if (at <= 0) return undefined;
  const local = plain.slice(0, at);
  const domain = plain.slice(at + 1);
  const mailDomain = mailDomainOf(env);
  const site = mailDomain && domain.endsWith(`.${mailDomain}`) ? domain.slice(0, -mailDomain.length - 1) : undefined;
  if (site !== undefined && /^[a-z0-9-]{1,63}$/.test(site)) {
    const { rows } = await db.http.execute(sql`
      SELECT i.id, i.installation_id${more} FROM inboxes i JOIN installations n ON n.id = i.installation_id
       WHERE n.site_name = ${site} AND i.state = 'active' AND (lower(i.local_part) = ${local} OR i.aliases @> ARRAY[${plain}]::text[])
       ORDER BY lower(i.local_part) = ${local} DESC NULLS LAST LIMIT 1`);
    return rows[0]
      ? { installationId: Number(rows[0].installation_id), inboxId: Number(rows[0].id), facts: rows[0] }
      : undefined;
  }
  const { rows } = await db.http.execute(sql`
    SELECT i.id, i.installation_id, ${domainVerified(sql`i.installation_id`, domain)} AS verified, ${domainVerified(null, domain)} AS anyones${more}
      FROM inboxes i WHERE i.state = 'active' AND (lower(i.email) = ${plain} OR i.aliases @> ARRAY[${plain}]::text[])
     ORDER BY 3 DESC LIMIT 2`);
  const verified = rows.filter((row) => row.verified === true);
  if (verified.length === 1)
    return {
      installationId: Number(verified[0]!.installation_id),
      inboxId: Number(verified[0]!.id),
      facts: verified[0]!,
    };
  // only when nobody proved the domain: its owner's mail is no business of whoever else lists the address
  if (rows.length > 0 && verified.length === 0 && rows[0]!.anyones !== true)
    return { refused: `${plain} does not receive here yet: its domain ${domain} is not verified` };
  return undefined;
}

/** An inbox as mail out needs it: its names and addresses, and which of its domains its installation verified. */
export interface SendingInbox {
  name: string;
  email: string | null;
  localPart: string | null;
  sendEmailsFrom: string | null;
  siteName: string;
  /** the domains of `email` and `sendEmailsFrom` its installation verified (`/v2/maildomains.json`) */
  verifiedDomains?: string[] | null;
}

/** The installation's own domain under the deployment's mail domain, `<siteName>.<MAIL_DOMAIN>`, where it needs no proof. */
export function ownMailDomain(env: Pick<Env, 'MAIL_DOMAIN'>, siteName: string): string | undefined {
  const mailDomain = mailDomainOf(env);
  return mailDomain ? `${siteName}.${mailDomain}`.toLowerCase() : undefined;
}

/** The inbox's own address at the deployment's mail domain (`<localPart>@<siteName>.<MAIL_DOMAIN>`), where it always receives. */
function receivingAddress(env: Pick<Env, 'MAIL_DOMAIN'>, inbox: SendingInbox): string | undefined {
  const own = ownMailDomain(env, inbox.siteName);
  return inbox.localPart && own ? `${inbox.localPart}@${own}`.toLowerCase() : undefined;
}

/** Whether mail may leave from `address`: one at the installation's own mail domain, or on a domain it verified. */
function maySendFrom(env: Pick<Env, 'MAIL_DOMAIN'>, inbox: SendingInbox, address: string | null): address is string {
  if (!address) return false;
  const domain = domainOf(address);
  return domain === ownMailDomain(env, inbox.siteName) || (inbox.verifiedDomains ?? []).includes(domain);
}

/**
 * Where the inbox's mail comes from and where answers go. From `sendEmailsFrom` when the team set
 * one and may send from it (at its own mail domain, or on a domain it verified), else from the
 * inbox's address at the mail domain (ours, so always sendable), else from its `email` on a
 * verified domain. Answers come back to the address at the mail domain when mail goes out from
 * another (`Reply-To`). None: the inbox has no address it may send from.
 */
export function sendingAddresses(
  env: Pick<Env, 'MAIL_DOMAIN'>,
  inbox: SendingInbox,
): { from: string; replyTo?: string } | undefined {
  const ours = receivingAddress(env, inbox);
  const email = maySendFrom(env, inbox, inbox.email) ? inbox.email : undefined;
  const from = (maySendFrom(env, inbox, inbox.sendEmailsFrom) ? inbox.sendEmailsFrom : undefined) ?? ours ?? email;
  if (!from) return undefined;
  const answersTo = ours ?? email;
  return answersTo && plainAddress(answersTo) !== plainAddress(from) ? { from, replyTo: answersTo } : { from };
}
