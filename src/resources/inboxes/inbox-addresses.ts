import { sql, type SQL } from 'drizzle-orm';
import type { Env } from '../../app-env';
import type { Actor } from '../../auth/principal';
import { inboxes } from '../../db/schema';
import type { WriteContext } from '../../engine';
import { changeWithEvents, withEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { domainOf, mailDomainOf, underMailDomain } from '../mail/mail-address';
import { domainVerified } from '../maildomains/verified-domain';
import { newVerificationToken } from '../maildomains/txt-record';

/** The properties naming the inbox's own addresses. */
const ADDRESS_PROPERTIES = ['email', 'aliases', 'sendEmailsFrom'] as const;

function addressesOf(record: Record<string, unknown>): Array<{ property: string; address: string }> {
  return ADDRESS_PROPERTIES.flatMap((property) => {
    const value = record[property];
    const list = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
    return list.map((address: string, index) => ({
      property: Array.isArray(value) ? `${property}[${index}]` : property,
      address: address.trim().toLowerCase(),
    }));
  });
}

/** What the address rules say, `%s` filled in the database (the installation's own domain is its site name's). */
const NOT_OWN = "an address at %s must be at this helpdesk's own %s (such as %s@%s)";
const NOT_VERIFIED =
  'mail leaves only from an address at %s or on a domain this helpdesk verified (/v2/maildomains.json); %s is not verified';

/**
 * The rules of an inbox's own addresses (`email`, `aliases`, `sendEmailsFrom`): one at the
 * deployment's mail domain is at this installation's own `<site>.<MAIL_DOMAIN>`, never another's;
 * mail leaves only from an address there or on a domain the installation verified
 * (`/v2/maildomains.json`), so `sendEmailsFrom` elsewhere is refused. `email` and `aliases` on a
 * domain not verified are kept, and receive once it is (`unverifiedAddresses` lists them). The
 * installation's own domain is listed among its mail domains, verified, from the first address on it.
 *
 * As SQL, built in the Worker where the mail domain is known (`env`), the site name and the
 * verified domains being the database's: `problem` answers the first address breaking a rule
 * (`source`, `detail`), in the body's order, or no row; `ownDomain` lists the own domain, when an
 * address is on it (undefined when none is under the mail domain). Undefined when the body names
 * no address.
 */
function addressRules(
  env: Pick<Env, 'MAIL_DOMAIN'>,
  who: Actor,
  record: Record<string, unknown>,
): { problem: SQL; ownDomain?: SQL } | undefined {
  const given = addressesOf(record).map(({ property, address }, n) => {
    const domain = domainOf(address);
    return {
      source: `inbox.${property}`,
      local: address.slice(0, address.lastIndexOf('@')),
      domain,
      under: underMailDomain(env, domain),
      sends: property === 'sendEmailsFrom',
      n,
    };
  });
  if (given.length === 0) return undefined;
  const mailDomain = mailDomainOf(env) ?? null;
  const own = sql`(SELECT lower(n.site_name || '.' || ${mailDomain}::text) AS name FROM installations n WHERE n.id = ${who.installationId}) own`;
  const problem = sql`SELECT x.source, CASE WHEN x.under AND x.domain <> own.name
        THEN format(${NOT_OWN}::text, ${mailDomain}::text, own.name, x.local, own.name)
        ELSE format(${NOT_VERIFIED}::text, coalesce(own.name, 'the mail domain'), x.domain) END AS detail
      FROM jsonb_to_recordset(${JSON.stringify(given)}::jsonb) AS x(source text, local text, domain text, under boolean, sends boolean, n int), ${own}
     WHERE (x.under AND x.domain <> own.name) OR (x.sends AND x.domain IS DISTINCT FROM own.name AND NOT ${domainVerified(who.installationId, sql`x.domain`)})
     ORDER BY x.n LIMIT 1`;
  const under = [...new Set(given.filter((address) => address.under).map((address) => address.domain))];
  if (under.length === 0) return { problem };
  const ownDomain = sql`
    INSERT INTO mail_domains (installation_id, name, verification_token, verified_at, created_by, updated_by)
    SELECT ${who.installationId}::int, own.name, ${newVerificationToken()}::text, now(), ${who.userId}::int, ${who.userId}::int FROM ${own}
     WHERE own.name IN (SELECT jsonb_array_elements_text(${JSON.stringify(under)}::jsonb))
    ON CONFLICT DO NOTHING RETURNING id`;
  return { problem, ownDomain };
}

/** The address rules in the write's transaction: the first address breaking one is a 400. */
export async function checkInboxAddresses(
  { tx, who, env }: WriteContext,
  record: Record<string, unknown>,
): Promise<void> {
  const rules = addressRules(env, who, record);
  if (!rules) return;
  const { rows } = await tx.execute(rules.problem);
  if (rows[0]) throw ApiError.invalid(String(rows[0].source), String(rows[0].detail));
  if (rules.ownDomain) await changeWithEvents(tx, rules.ownDomain, who, 'maildomains', 'created');
}

/** The address rules as statements of a batch: the first address breaking one stops it with its 400. */
export function inboxAddressStatements(
  env: Pick<Env, 'MAIL_DOMAIN'>,
  who: Actor,
  record: Record<string, unknown>,
): SQL[] {
  const rules = addressRules(env, who, record);
  if (!rules) return [];
  const refusal = sql`SELECT desk_refuse(400, p.source, p.detail) FROM (${rules.problem}) p`;
  return rules.ownDomain ? [refusal, withEvents(rules.ownDomain, who, 'maildomains', 'created')] : [refusal];
}

/**
 * The inbox's own addresses it does not receive or send at yet: on a domain its installation has
 * not verified.
 */
export const unverifiedAddressesSql = sql`ARRAY(
  SELECT a FROM unnest(array_remove(ARRAY[lower(${inboxes.email}), lower(${inboxes.sendEmailsFrom})], NULL) || ${inboxes.aliases}) AS a
   WHERE NOT ${domainVerified(sql`${inboxes.installationId}`, sql`split_part(a, '@', 2)`)})`;
