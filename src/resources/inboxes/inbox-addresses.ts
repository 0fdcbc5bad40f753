import { sql } from 'drizzle-orm';
import { inboxes } from '../../db/schema';
import type { WriteContext } from '../../engine';
import { changeWithEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { domainOf, mailDomainOf, ownMailDomain, underMailDomain } from '../mail/mail-address';
import { domainVerified } from '../maildomains/verified-domain';
import { newVerificationToken } from '../maildomains/txt-record';

/** The properties naming the inbox's own addresses. */
const ADDRESS_PROPERTIES = ['email', 'aliases', 'sendEmailsFrom'] as const;

function addressesOf(record: Record<string, unknown>): Array<{ property: string; address: string }> {
  return ADDRESS_PROPERTIES.flatMap((property) => {
    const value = record[property];
    const list = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
    return list.map((address: string, index) => ({ property: Array.isArray(value) ? `${property}[${index}]` : property, address: address.trim().toLowerCase() }));
  });
}

/** Whether the body names any of the inbox's own addresses (their rules need the Worker's mail domain). */
export const namesAddresses = (record: Record<string, unknown>) => addressesOf(record).length > 0;

/**
 * The rules of an inbox's own addresses (`email`, `aliases`, `sendEmailsFrom`): one at the
 * deployment's mail domain is at this installation's own `<site>.<MAIL_DOMAIN>`, never another's;
 * mail leaves only from an address there or on a domain the installation verified
 * (`/v2/maildomains.json`), so `sendEmailsFrom` elsewhere is refused. `email` and `aliases` on a
 * domain not verified are kept, and receive once it is (`unverifiedAddresses` lists them). The
 * installation's own domain is listed among its mail domains, verified, from the first address on it.
 */
export async function checkInboxAddresses({ tx, who, env }: WriteContext, record: Record<string, unknown>): Promise<void> {
  const given = addressesOf(record);
  if (given.length === 0) return;
  const domains = [...new Set(given.map(({ address }) => domainOf(address)))];
  const { rows } = await tx.execute(sql`
    SELECT n.site_name, ARRAY(SELECT x FROM jsonb_array_elements_text(${JSON.stringify(domains)}::jsonb) AS x WHERE ${domainVerified(sql`n.id`, sql`x`)}) AS verified
      FROM installations n WHERE n.id = ${who.installationId}`);
  const siteName = String(rows[0]!.site_name);
  const verified = new Set(rows[0]!.verified as string[]);
  const own = ownMailDomain(env, siteName);
  for (const { property, address } of given) {
    const domain = domainOf(address);
    if (underMailDomain(env, domain) && domain !== own) {
      throw ApiError.invalid(`inbox.${property}`, `an address at ${mailDomainOf(env)} must be at this helpdesk's own ${own} (such as ${address.slice(0, address.lastIndexOf('@'))}@${own})`);
    }
    if (property === 'sendEmailsFrom' && domain !== own && !verified.has(domain)) {
      throw ApiError.invalid('inbox.sendEmailsFrom', `mail leaves only from an address at ${own ?? 'the mail domain'} or on a domain this helpdesk verified (/v2/maildomains.json); ${domain} is not verified`);
    }
  }
  if (own && domains.includes(own)) {
    await changeWithEvents(tx, sql`
      INSERT INTO mail_domains (installation_id, name, verification_token, verified_at, created_by, updated_by)
      VALUES (${who.installationId}, ${own}, ${newVerificationToken()}, now(), ${who.userId}, ${who.userId})
      ON CONFLICT DO NOTHING RETURNING id`, who, 'maildomains', 'created');
  }
}

/**
 * The inbox's own addresses it does not receive or send at yet: on a domain its installation has
 * not verified.
 */
export const unverifiedAddressesSql = sql`ARRAY(
  SELECT a FROM unnest(array_remove(ARRAY[lower(${inboxes.email}), lower(${inboxes.sendEmailsFrom})], NULL) || ${inboxes.aliases}) AS a
   WHERE NOT ${domainVerified(sql`${inboxes.installationId}`, sql`split_part(a, '@', 2)`)})`;
