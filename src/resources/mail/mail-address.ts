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
 * deployment's mail domain); mail to an inbox's own `email` (the team's address, forwarded here
 * or routed by Email Routing) reaches it too, when one installation alone has that address. This
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
       WHERE n.site_name = ${site} AND i.state = 'active' AND lower(i.local_part) = ${local} LIMIT 1`);
    return rows[0] ? { installationId: Number(rows[0].installation_id), inboxId: Number(rows[0].id) } : undefined;
  }
  const { rows } = await db.http.execute(sql`SELECT id, installation_id FROM inboxes WHERE state = 'active' AND lower(email) = ${plain} LIMIT 2`);
  return rows.length === 1 ? { installationId: Number(rows[0]!.installation_id), inboxId: Number(rows[0]!.id) } : undefined;
}
